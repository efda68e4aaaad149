// Command setup installs what veclab's tests drive and is missing, from
// the one list in internal/testenv: the Debian packages with apt-get
// install -y (as root; apt-get update first), then the pinned npm trees
// with npm ci. It says plainly what it could not install and why, and ends
// with what is present and what is not. ./test.sh runs it before the
// tests.
//
//	go run ./internal/testenv/setup          # install what is missing
//	go run ./internal/testenv/setup -n       # only say what is missing
//	go run ./internal/testenv/setup -list    # the list, as Markdown
//
// Outside CI it exits 0 when something could not be installed (the tests
// that need it skip, naming it); under CI=true it exits 1, since those
// tests would fail.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/veclab/veclab/internal/testenv"
)

func main() {
	dry := flag.Bool("n", false, "only report what is missing; install nothing")
	list := flag.Bool("list", false, "print the list of externals as a Markdown table and exit")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "setup: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if *list {
		printList(os.Stdout)
		return
	}
	if err := run(*dry, os.Stdout); err != nil {
		fmt.Fprintln(os.Stdout, "setup:", err)
		if testenv.InCI() {
			os.Exit(1)
		}
	}
}

func printList(w io.Writer) { fmt.Fprint(w, testenv.Table()) }

// run installs the missing externals and reports what is still missing as
// an error.
func run(dry bool, w io.Writer) error {
	missing := testenv.Missing(testenv.All()...)
	if len(missing) == 0 {
		fmt.Fprintf(w, "setup: all %d externals the tests drive are present\n", len(testenv.All()))
		return nil
	}
	fmt.Fprintf(w, "setup: missing: %s\n", names(missing))
	if dry {
		return errors.New(testenv.Line(missing))
	}
	var debs []string
	var trees []*testenv.External
	for _, e := range missing {
		if e.NPMDir != "" {
			trees = append(trees, e)
		} else {
			debs = append(debs, e.Debian...)
		}
	}
	if len(debs) > 0 {
		if err := aptInstall(debs, w); err != nil {
			fmt.Fprintf(w, "setup: could not install the Debian packages %s: %v\n", strings.Join(debs, " "), err)
		}
	}
	for _, e := range trees {
		if err := npmCI(e, w); err != nil {
			fmt.Fprintf(w, "setup: could not install %s: %v\n", e.Provider(), err)
		}
	}
	// Check everything again, not only what was installed: one install can
	// bring another's package (jupyter-nbconvert brings nbformat).
	var still []*testenv.External
	for _, e := range testenv.All() {
		if err := e.Check(); err != nil {
			still = append(still, e)
			fmt.Fprintf(w, "setup: still missing %s: %v\n", e.Name, err)
		}
	}
	if len(still) > 0 {
		return fmt.Errorf("the tests that drive them will skip (fail under CI=true): %s", testenv.Line(still))
	}
	fmt.Fprintf(w, "setup: installed; all %d externals the tests drive are present\n", len(testenv.All()))
	return nil
}

func names(es []*testenv.External) string {
	var s []string
	for _, e := range es {
		s = append(s, e.Provider())
	}
	return strings.Join(s, "; ")
}

// aptInstall runs apt-get update once, then apt-get install -y, when this
// process may (root, apt-get present).
func aptInstall(pkgs []string, w io.Writer) error {
	apt, err := exec.LookPath("apt-get")
	if err != nil {
		return errors.New("apt-get not found: this is not a Debian-like machine; install them with its package manager")
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("not root; run: sudo apt-get install -y %s", strings.Join(pkgs, " "))
	}
	env := append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	fmt.Fprintf(w, "setup: apt-get update && apt-get install -y %s\n", strings.Join(pkgs, " "))
	if err := runLogged(w, env, "", apt, "update", "-q"); err != nil {
		return fmt.Errorf("apt-get update failed (no network, or no Debian mirror reachable?): %w", err)
	}
	args := append([]string{"install", "-y", "-q"}, pkgs...)
	return runLogged(w, env, "", apt, args...)
}

// npmCI installs a pinned npm tree as its package-lock.json says.
func npmCI(e *testenv.External, w io.Writer) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return errors.New("npm not found (it comes with the Debian packages nodejs and npm, which could not be installed)")
	}
	fmt.Fprintf(w, "setup: npm ci in %s\n", e.NPMDir)
	if err := runLogged(w, nil, e.Dir(), npm, "ci", "--no-audit", "--no-fund"); err != nil {
		return fmt.Errorf("npm ci in %s failed (no network, or the npm registry unreachable?): %w", e.NPMDir, err)
	}
	return nil
}

// runLogged runs a command with its output kept, and shows the output's
// tail only when it fails: a successful install is one line, a failed one
// says why.
func runLogged(w io.Writer, env []string, dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		for _, l := range lines {
			fmt.Fprintln(w, "    "+l)
		}
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}
