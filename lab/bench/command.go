package bench

import (
	"path/filepath"
	"strings"
)

// machineOnly are the flags whose values say where a run kept its files,
// not what it measured: a saved command drops them when they point
// outside the working directory.
var machineOnly = map[string]bool{"-cache": true, "-cpuprofile": true, "-peer-src": true}

// PortableCommand is the command line name args as a saved record shows
// it, without machine paths: a flag value that is an absolute path under
// wd (the working directory; "" none) becomes relative to it; elsewhere
// -cache, -cpuprofile and -peer-src are dropped with their value (they do
// not change a figure) and any other absolute path is cut to its base name
// (-json /tmp/x/hnsw.json → -json hnsw.json). Flags are read as the flag
// package writes them: "-name value" or "-name=value".
func PortableCommand(name string, args []string, wd string) string {
	var out []string
	if name != "" {
		out = append(out, name)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if flag, val, ok := strings.Cut(a, "="); ok && strings.HasPrefix(flag, "-") {
			if p, keep := portablePath(flag, val, wd); keep {
				out = append(out, flag+"="+p)
			}
			continue
		}
		if strings.HasPrefix(a, "-") && i+1 < len(args) && filepath.IsAbs(args[i+1]) {
			if p, keep := portablePath(a, args[i+1], wd); keep {
				out = append(out, a, p)
			}
			i++
			continue
		}
		if filepath.IsAbs(a) {
			a = filepath.Base(a)
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}

// portablePath is flag's value val as PortableCommand shows it; keep is
// false when the flag is dropped.
func portablePath(flag, val, wd string) (string, bool) {
	if !filepath.IsAbs(val) {
		return val, true
	}
	if wd != "" {
		if rel, err := filepath.Rel(wd, val); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel, true
		}
	}
	if machineOnly["-"+strings.TrimLeft(flag, "-")] {
		return "", false
	}
	return filepath.Base(val), true
}
