package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/veclab/veclab/kernel"
)

func init() {
	register(&command{
		name:    "install",
		summary: "install the Jupyter kernelspec (--user | --prefix DIR | --sys-prefix)",
		run:     runInstall,
	})
}

// kernelSpec is the kernel.json of the Jupyter kernelspec.
type kernelSpec struct {
	Argv          []string          `json:"argv"`
	DisplayName   string            `json:"display_name"`
	Language      string            `json:"language"`
	InterruptMode string            `json:"interrupt_mode"`
	Env           map[string]string `json:"env"`
	Metadata      map[string]any    `json:"metadata"`
}

func runInstall(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	fs.SetOutput(stderr)
	user := fs.Bool("user", false, "install for the current user (the default)")
	prefix := fs.String("prefix", "", "install under DIR/share/jupyter/kernels")
	sysPrefix := fs.Bool("sys-prefix", false, "install under the Python sys.prefix of python3")
	name := fs.String("name", "veclab", "kernelspec name")
	displayName := fs.String("display-name", "Go (veclab)", "name shown by front ends")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	n := 0
	for _, b := range []bool{*user, *prefix != "", *sysPrefix} {
		if b {
			n++
		}
	}
	if n > 1 {
		return errors.New("--user, --prefix and --sys-prefix are exclusive")
	}
	if *name == "" || strings.ContainsAny(*name, `/\ `) {
		return fmt.Errorf("invalid kernelspec name %q", *name)
	}
	var root string
	switch {
	case *prefix != "":
		abs, err := filepath.Abs(*prefix)
		if err != nil {
			return err
		}
		root = filepath.Join(abs, "share", "jupyter", "kernels")
	case *sysPrefix:
		py := "python3"
		if _, err := os.Stat("/usr/bin/python3"); err == nil {
			py = "/usr/bin/python3"
		}
		out, err := exec.Command(py, "-c", "import sys; print(sys.prefix)").Output()
		if err != nil {
			return fmt.Errorf("--sys-prefix: asking %s for sys.prefix: %w", py, err)
		}
		root = filepath.Join(strings.TrimSpace(string(out)), "share", "jupyter", "kernels")
	default:
		d, err := userDataDir()
		if err != nil {
			return err
		}
		root = filepath.Join(d, "kernels")
	}
	dir := filepath.Join(root, *name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// A stable binary: copy this executable into the kernelspec directory,
	// so the spec never points at a `go run` temporary or a build tree.
	bin, err := copySelf(filepath.Join(dir, "veclab"))
	if err != nil {
		return err
	}
	spec := kernelSpec{
		Argv:          []string{bin, "kernel", "-f", "{connection_file}"},
		DisplayName:   *displayName,
		Language:      "go",
		InterruptMode: "signal",
		Env:           map[string]string{},
		Metadata:      map[string]any{"debugger": true, "veclab_version": kernel.Version}, // JupyterLab shows its Debugger (the variables panel) for a kernelspec that says so
	}
	js, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "kernel.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	for _, size := range []int{32, 64} {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("logo-%dx%d.png", size, size)), logoPNG(size), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "installed kernelspec %q in %s\n", *name, dir)
	return nil
}

// userDataDir is Jupyter's per-user data directory.
func userDataDir() (string, error) {
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Jupyter"), nil
	case "windows":
		if a := os.Getenv("APPDATA"); a != "" {
			return filepath.Join(a, "jupyter"), nil
		}
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "jupyter"), nil
	}
	return filepath.Join(home, ".local", "share", "jupyter"), nil
}

// copySelf copies the running executable to dst (atomically) and returns
// dst's absolute path.
func copySelf(dst string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	dst, err = filepath.Abs(dst)
	if err != nil {
		return "", err
	}
	if self == dst {
		return dst, nil
	}
	in, err := os.Open(self)
	if err != nil {
		return "", err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".veclab-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	return dst, os.Rename(tmp.Name(), dst)
}

// logoPNG draws the kernel logo: a small proximity graph (the HNSW idea)
// in white on Go blue.
func logoPNG(size int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	bg := color.NRGBA{0x00, 0xAD, 0xD8, 0xFF}
	fg := color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF}
	s := float64(size) / 64
	r := 10 * s // corner radius
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			cx, cy := clamp(fx, r, float64(size)-r), clamp(fy, r, float64(size)-r)
			if (fx-cx)*(fx-cx)+(fy-cy)*(fy-cy) <= r*r {
				img.Set(x, y, bg)
			}
		}
	}
	pts := [][2]float64{{14, 18}, {32, 12}, {50, 20}, {22, 36}, {42, 40}, {16, 52}, {34, 54}, {50, 50}}
	edges := [][2]int{{0, 1}, {1, 2}, {0, 3}, {1, 3}, {1, 4}, {2, 4}, {3, 4}, {3, 5}, {3, 6}, {4, 6}, {4, 7}, {6, 7}, {5, 6}}
	for _, e := range edges {
		a, b := pts[e[0]], pts[e[1]]
		steps := int(64 * s)
		for i := 0; i <= steps; i++ {
			t := float64(i) / float64(steps)
			dot(img, (a[0]+(b[0]-a[0])*t)*s, (a[1]+(b[1]-a[1])*t)*s, 1.1*s, fg)
		}
	}
	for _, p := range pts {
		dot(img, p[0]*s, p[1]*s, 4*s, fg)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic("veclab: encoding the logo: " + err.Error())
	}
	return buf.Bytes()
}

func dot(img *image.NRGBA, cx, cy, r float64, c color.NRGBA) {
	for y := int(cy - r - 1); y <= int(cy+r+1); y++ {
		for x := int(cx - r - 1); x <= int(cx+r+1); x++ {
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			if dx*dx+dy*dy <= r*r && image.Pt(x, y).In(img.Rect) {
				img.SetNRGBA(x, y, c)
			}
		}
	}
}

func clamp(v, lo, hi float64) float64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
