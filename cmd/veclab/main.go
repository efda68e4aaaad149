// Command veclab is the laboratory's one command: it reproduces the articles'
// experiments, runs notebooks without Jupyter, serves the Jupyter kernel and
// runs the benchmarks.
//
// Each subcommand lives in its own file and registers itself in init with
// [register]; "bench" subcommands register as "bench NAME".
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/veclab/veclab/engine/vec"
)

// command is one subcommand: run receives the arguments after its name.
type command struct {
	name    string // "reproduce", "bench hnsw", …
	summary string // one line for the usage text
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("veclab: duplicate command " + c.name)
	}
	commands[c.name] = c
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: veclab COMMAND [flags]")
	fmt.Fprintln(w)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-16s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'veclab COMMAND -h' for a command's flags.")
}

// lookup finds the command named by the first one or two arguments.
func lookup(args []string) (*command, []string) {
	if len(args) >= 2 {
		if c, ok := commands[args[0]+" "+args[1]]; ok {
			return c, args[2:]
		}
	}
	if len(args) >= 1 {
		if c, ok := commands[args[0]]; ok {
			return c, args[1:]
		}
	}
	return nil, nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return 0
	}
	if err := vec.KernelSettingErr(); err != nil {
		fmt.Fprintf(stderr, "veclab: %v\n", err)
		return 2
	}
	c, rest := lookup(args)
	if c == nil {
		fmt.Fprintf(stderr, "veclab: unknown command %q\n\n", strings.Join(args[:min(2, len(args))], " "))
		usage(stderr)
		return 2
	}
	if err := c.run(rest, stdout, stderr); err != nil {
		// A package named as the command (lab/advise under `advise`)
		// prefixes its errors with the same word: print it once.
		fmt.Fprintf(stderr, "veclab %s: %s\n", c.name, strings.TrimPrefix(err.Error(), c.name+": "))
		return 1
	}
	return 0
}
