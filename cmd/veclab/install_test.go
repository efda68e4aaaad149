package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestInstallPrefix(t *testing.T) {
	prefix := t.TempDir()
	var out, errb bytes.Buffer
	if err := runInstall([]string{"--prefix", prefix}, &out, &errb); err != nil {
		t.Fatalf("install: %v\n%s", err, errb.String())
	}
	dir := filepath.Join(prefix, "share", "jupyter", "kernels", "veclab")
	b, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec kernelSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	if len(spec.Argv) != 4 || spec.Argv[1] != "kernel" || spec.Argv[2] != "-f" || spec.Argv[3] != "{connection_file}" {
		t.Errorf("argv %q", spec.Argv)
	}
	if spec.Argv[0] != filepath.Join(dir, "veclab") {
		t.Errorf("argv[0] %q is not the copied binary in the kernelspec", spec.Argv[0])
	}
	if fi, err := os.Stat(spec.Argv[0]); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("binary not there or not executable: %v", err)
	}
	if spec.Language != "go" || spec.InterruptMode != "signal" || spec.DisplayName == "" {
		t.Errorf("spec %+v", spec)
	}
	for _, size := range []int{32, 64} {
		f, err := os.Open(filepath.Join(dir, fmt.Sprintf("logo-%dx%d.png", size, size)))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() != size || img.Bounds().Dy() != size {
			t.Errorf("logo %d: %v %v", size, err, img.Bounds())
		}
	}
	// Installing again replaces the files in place.
	if err := runInstall([]string{"--prefix", prefix}, &out, &errb); err != nil {
		t.Fatalf("second install: %v", err)
	}
}

func TestInstallRejects(t *testing.T) {
	for _, args := range [][]string{
		{"--user", "--prefix", "x"},
		{"--sys-prefix", "--prefix", "x"},
		{"--name", "a/b", "--prefix", "x"},
		{"extra"},
	} {
		var out, errb bytes.Buffer
		if err := runInstall(args, &out, &errb); err == nil {
			t.Errorf("install %q accepted", args)
		}
	}
}

func TestRunNotebookCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.ipynb")
	var o, e bytes.Buffer
	if err := runNotebook([]string{filepath.Join("..", "..", "kernel", "testdata", "smoke.ipynb"), "-o", out, "-q"}, &o, &e); err != nil {
		t.Fatalf("run: %v\n%s", err, e.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("hello from nbconvert")) || !bytes.Contains(b, []byte(`"execute_result"`)) {
		t.Errorf("outputs missing from %s", b)
	}
	if err := runNotebook(nil, &o, &e); err == nil {
		t.Error("run without a notebook accepted")
	}
}
