package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/internal/checkout"
	"github.com/veclab/veclab/lab/dataset"
)

// The native peers of the bench functions live in the repository's
// bench/peers directory as C++ sources with a build.sh each (hnswlib's
// harness, the plain C loop of exact search); FAISS is driven by the Go
// package bench/peers/faiss. A function that runs a native peer compiles
// it into a temporary directory before any timing.

// findPeers locates bench/peers: dir if given, else bench/peers of the
// checkout holding the working directory (internal/checkout), which must
// hold <name>/build.sh.
func findPeers(dir, name string) (string, error) {
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, name, "build.sh")); err != nil {
			return "", fmt.Errorf("bench: peer sources %s: %w", dir, err)
		}
		return dir, nil
	}
	root, err := checkout.Find()
	if err != nil {
		return "", fmt.Errorf("bench: peer sources: %v; run from the repository or give the peer sources' directory (PeerSrc, -peer-src): %w", err, engine.ErrInvalidArgument)
	}
	p := filepath.Join(root, "bench", "peers")
	if st, err := os.Stat(filepath.Join(p, name, "build.sh")); err != nil || st.IsDir() {
		return "", fmt.Errorf("bench: the checkout at %s has no bench/peers/%s/build.sh; give the peer sources' directory (PeerSrc, -peer-src): %w", root, name, engine.ErrInvalidArgument)
	}
	return p, nil
}

// buildPeer compiles bench/peers/<name> with its build.sh into dir/bin and
// returns the binary's path.
func buildPeer(peerSrc, name, bin, dir string) (string, error) {
	peers, err := findPeers(peerSrc, name)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, bin)
	cmd := exec.Command("bash", filepath.Join(peers, name, "build.sh"), out)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("bench: building the %s peer: %s: %w", name, strings.TrimSpace(b.String()), err)
	}
	return out, nil
}

// runPeer runs a compiled peer and returns its standard output.
func runPeer(name string, cmd *exec.Cmd) ([]byte, error) {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("bench: %s peer: %s: %w", name, strings.TrimSpace(errb.String()), err)
	}
	return out.Bytes(), nil
}

// LoadAverage returns the 1-, 5- and 15-minute load averages of the
// machine from /proc/loadavg, or "unknown". Every timing of this package
// is wall time or CPU time on whatever else the machine runs; the load
// average says how much that was.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	fs := strings.Fields(string(b))
	if len(fs) < 3 {
		return "unknown"
	}
	return strings.Join(fs[:3], " ")
}

// workDir returns dir, created if missing, or (dir "") a new temporary
// directory named after pattern; remove deletes the temporary directory
// and leaves a given one in place.
func workDir(what, dir, pattern string) (path string, remove func(), err error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", nil, fmt.Errorf("bench: %s: working directory: %w", what, err)
		}
		return dir, func() {}, nil
	}
	if dir, err = os.MkdirTemp("", pattern); err != nil {
		return "", nil, fmt.Errorf("bench: %s: working directory: %w", what, err)
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// peerDir is the temporary directory a native peer runs in: the data set
// as .fvecs (and the truth as .ivecs, when given), and the peer's binary.
type peerDir struct {
	what   string // the bench function, for messages
	dir    string
	files  dataset.Files
	remove func()
}

// newPeerDir makes a temporary directory and writes ds and truth (nil:
// none) into it; what names the bench function in errors. The caller
// defers remove.
func newPeerDir(what string, ds *dataset.Dataset, truth *dataset.GroundTruth) (*peerDir, error) {
	dir, remove, err := workDir(what, "", "veclab-bench-"+what+"-")
	if err != nil {
		return nil, err
	}
	files, err := dataset.WriteDir(dir, ds, truth)
	if err != nil {
		remove()
		return nil, fmt.Errorf("bench: %s: %w", what, err)
	}
	return &peerDir{what: what, dir: dir, files: files, remove: remove}, nil
}

// build compiles bench/peers/<name> into the directory as bin, saying so
// on log, and returns the binary's path.
func (p *peerDir) build(peerSrc, name, bin string, log io.Writer) (string, error) {
	fmt.Fprintf(log, "bench %s: building the %s peer…\n", p.what, name)
	return buildPeer(peerSrc, name, bin, p.dir)
}
