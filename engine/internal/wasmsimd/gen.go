//go:build ignore

// gen writes veclab-simd.js (see wasmgen); run it with go generate.
package main

import (
	"log"
	"os"

	"github.com/veclab/veclab/engine/internal/wasmsimd/wasmgen"
)

func main() {
	if err := os.WriteFile(wasmgen.FileName, wasmgen.JS(), 0o644); err != nil {
		log.Fatal(err)
	}
}
