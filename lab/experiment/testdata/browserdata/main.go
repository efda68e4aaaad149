// Command browserdata is run by TestOpenRealSetsInBrowser as js/wasm under
// Node with no file system (nofs.js): it prints what OpenRealSets opens
// at the small scale and int8's flat-scan recall on the compiled-in
// glove-3k, or the error.
package main

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
)

func main() {
	rs, err := experiment.OpenRealSets(experiment.Small, 1)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(rs)
	g, ok := rs.Envs["glove-3k"]
	if !ok {
		fmt.Println("error: no glove-3k")
		return
	}
	r, err := experiment.QuantFlat(g, "int8", []float64{1.5})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("glove-3k int8 recall@%d %.3f, ×1.5 %.3f\n", g.Scale.K, r.RecallNone, r.RecallOver[0])
}
