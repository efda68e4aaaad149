package bitsx

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedUpToDate runs the generator (the //go:generate line of
// select.go) into a temporary directory and requires byte-identical output
// to the committed files. It needs the avo module, from the module cache or
// proxy.
func TestGeneratedUpToDate(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to rerun the generator: %v", err)
	}
	dir := t.TempDir()
	cmd := exec.Command(goTool, "run", "-C", filepath.Join("..", "asmgen"), ".", "-gen", "bitsx", "-out", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd, err, out)
	}
	for _, name := range []string{"codes_amd64.s", "stubs_amd64.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator's output: run go generate ./engine/internal/bitsx", name)
		}
	}
}
