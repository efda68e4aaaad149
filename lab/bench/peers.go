package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/veclab/veclab/engine"
)

// The native peers of the bench functions live in the repository's
// bench/peers directory as C++ sources with a build.sh each (hnswlib's
// harness, the plain C loop of exact search); FAISS is driven by the Go
// package bench/peers/faiss. A function that runs a native peer compiles
// it into a temporary directory before any timing.

// findPeers locates bench/peers: dir if given, else the nearest parent of
// the working directory that holds bench/peers/<name>/build.sh.
func findPeers(dir, name string) (string, error) {
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, name, "build.sh")); err != nil {
			return "", fmt.Errorf("bench: peer sources %s: %w", dir, err)
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("bench: peer sources: %w", err)
	}
	for d := wd; ; {
		p := filepath.Join(d, "bench", "peers")
		if st, err := os.Stat(filepath.Join(p, name, "build.sh")); err == nil && !st.IsDir() {
			return p, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("bench: bench/peers/%s/build.sh not found above %s; run from the repository or give the peer sources' directory (PeerSrc, -peer-src): %w", name, wd, engine.ErrInvalidArgument)
		}
		d = parent
	}
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
