package eval

import (
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"sort"
	"strings"

	xr "github.com/cosmos72/gomacro/xreflect"
)

// Magics are IPython's line and cell magics, read before the cell reaches
// gomacro. A line of a cell whose first non-blank character is % (outside
// a string or a comment) is never Go, so it can only be a magic:
//
//	%name args        a line magic, anywhere in the cell, run in its place
//	%%name args       a cell magic: the cell's first line; the rest of the
//	                  cell is its body
//
// A cell with line magics runs as pieces in order (the Go between magic
// lines, then the magic, …) under one cell context: the value shown is
// the last piece's, and an error stops the cell there. The Go pieces keep
// their cell line numbers in errors.

// magic is one magic of the session.
type magic struct {
	name  string
	usage string // one line: the syntax
	doc   string // one line: what it does
	line  func(s *Session, m magicCall) ([]xr.Value, []xr.Type, *Error)
	cell  func(s *Session, m magicCall) ([]xr.Value, []xr.Type, *Error)
}

// magicCall is one use of a magic: its arguments and, for a cell magic,
// the cell body; lines are the cell lines of each (1-based).
type magicCall struct {
	name     string
	args     string
	argsLine int
	body     string
	bodyLine int
}

// magics is the table of the session's magics, by name.
var magics map[string]*magic

func init() {
	list := []*magic{
		{name: "env", usage: "%env [NAME | NAME=VALUE | NAME VALUE]",
			doc:  "list the environment (values of names holding KEY, TOKEN or SECRET hidden), show one variable, or set one",
			line: (*Session).magicEnv},
		{name: "lsmagic", usage: "%lsmagic", doc: "list the magics with their syntax (this text)",
			line: func(s *Session, m magicCall) ([]xr.Value, []xr.Type, *Error) {
				fmt.Fprint(os.Stdout, LsMagic())
				return nil, nil, nil
			}},
		{name: "time", usage: "%time STATEMENT   or   %%time (first line) + cell",
			doc:  "run once and print CPU times (user, sys, total) and wall time, as IPython; the value is shown as usual",
			line: (*Session).magicTime, cell: (*Session).magicTime},
		{name: "timeit", usage: "%timeit [-n N] [-r R] [-p P] [-q] STATEMENT   or   %%timeit [options] [SETUP] (first line) + cell",
			doc:  "compile once, run N loops R times (default 7 runs, N chosen so one run takes at least 0.2 s, as IPython) and print mean ± std. dev. per loop",
			line: (*Session).magicTimeit, cell: (*Session).magicTimeit},
		{name: "who", usage: "%who [TYPE ...]", doc: "names of the variables, constants and functions the cells defined (only those of the given types or kinds: int, slice, func, *hnsw.Index …)",
			line: (*Session).magicWho},
		{name: "whos", usage: "%whos [TYPE ...]", doc: "as %who, with each one's type and a short value (n=length for slices and maps)",
			line: (*Session).magicWhos},
	}
	magics = make(map[string]*magic, len(list))
	for _, m := range list {
		magics[m.name] = m
	}
}

// magicNames lists the line (cell false) or cell magics, sorted.
func magicNames(cell bool) []string {
	var ns []string
	for n, m := range magics {
		if cell && m.cell != nil || !cell && m.line != nil {
			ns = append(ns, n)
		}
	}
	sort.Strings(ns)
	return ns
}

// LsMagic is what %lsmagic prints: the magics, then each one's syntax and
// purpose.
func LsMagic() string {
	var b strings.Builder
	b.WriteString("Available line magics:\n")
	for i, n := range magicNames(false) {
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString("%" + n)
	}
	b.WriteString("\n\nAvailable cell magics:\n")
	for i, n := range magicNames(true) {
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString("%%" + n)
	}
	b.WriteString("\n\nA line magic is a line of its own starting with %, anywhere in a cell; a cell magic (%%) is the cell's first line.\n\n")
	for _, n := range magicNames(false) {
		m := magics[n]
		fmt.Fprintf(&b, "%s\n    %s\n", m.usage, m.doc)
	}
	return b.String()
}

// piece is a part of a cell with magics: Go code (name "") or one magic.
type piece struct {
	line int    // the cell line it starts at (1-based)
	code string // Go code, with line-1 newlines before it (line numbers kept)
	call magicCall
}

// splitMagics reads the magics of a cell: nil pieces when it has none
// (the cell is Go), an Error for a misplaced or unknown magic.
func splitMagics(code string) ([]piece, *Error) {
	lines := strings.Split(code, "\n")
	magicAt := magicLines(code, lines)
	if len(magicAt) == 0 {
		return nil, nil
	}
	if l, ok := magicInBlock(code, lines, magicAt); ok {
		return nil, usageError(l+1, fmt.Sprintf("a magic must stand at the top level of the cell, not inside brackets or a block (line %d): put the Go it times on its line, as %%timeit f(x), or use %%%%timeit for a whole cell", l+1))
	}
	var out []piece
	start := 0 // first line (0-based) of the pending Go piece
	flush := func(end int) {
		if start < end && strings.TrimSpace(strings.Join(lines[start:end], "\n")) != "" {
			out = append(out, piece{line: start + 1, code: strings.Repeat("\n", start) + strings.Join(lines[start:end], "\n")})
		}
	}
	for i, l := range lines {
		if !magicAt[i] {
			continue
		}
		t := strings.TrimSpace(l)
		cell := strings.HasPrefix(t, "%%")
		name, args := splitName(strings.TrimLeft(t, "%"))
		m := magics[name]
		switch {
		case cell && i != 0:
			return nil, usageError(i+1, fmt.Sprintf("the cell magic %%%%%s must be the first line of the cell (line %d here)", name, i+1))
		case cell && (m == nil || m.cell == nil):
			return nil, usageError(i+1, fmt.Sprintf("Cell magic `%%%%%s` not found (this kernel's cell magics: %s; %%lsmagic lists all)", name, list("%%", magicNames(true))))
		case !cell && (m == nil || m.line == nil):
			return nil, usageError(i+1, fmt.Sprintf("Line magic function `%%%s` not found (this kernel's line magics: %s; %%lsmagic lists all)", name, list("%", magicNames(false))))
		case name == "":
			return nil, usageError(i+1, "a magic needs a name after %: %lsmagic lists them")
		}
		if cell {
			for j := 1; j < len(lines); j++ {
				if magicAt[j] {
					return nil, usageError(j+1, fmt.Sprintf("a magic inside the body of %%%%%s (line %d) is not supported: time the Go code itself", name, j+1))
				}
			}
			body := ""
			if len(lines) > 1 {
				body = "\n" + strings.Join(lines[1:], "\n")
			}
			return []piece{{line: 1, call: magicCall{name: name, args: args, argsLine: 1, body: body, bodyLine: 2}}}, nil
		}
		flush(i)
		out = append(out, piece{line: i + 1, call: magicCall{name: name, args: args, argsLine: i + 1}})
		start = i + 1
	}
	flush(len(lines))
	return out, nil
}

// magicLines marks the lines (0-based) that are magics: first non-blank
// character %, and the line not inside a multi-line string or comment.
func magicLines(code string, lines []string) map[int]bool {
	var at map[int]bool
	var spans [][2]int // byte spans of multi-line tokens
	offset := 0
	for i, l := range lines {
		if t := strings.TrimLeft(l, " \t"); strings.HasPrefix(t, "%") {
			if spans == nil {
				spans = multiLineTokens(code)
			}
			inside := false
			for _, sp := range spans {
				if offset > sp[0] && offset < sp[1] {
					inside = true
					break
				}
			}
			if !inside {
				if at == nil {
					at = map[int]bool{}
				}
				at[i] = true
			}
		}
		offset += len(l) + 1
	}
	return at
}

// magicInBlock returns the first magic line (0-based) that lies inside
// brackets or a block of the cell's Go (the magic lines left out).
func magicInBlock(code string, lines []string, magicAt map[int]bool) (int, bool) {
	blank := make([]string, len(lines))
	starts := make([]int, len(lines))
	off := 0
	for i, l := range lines {
		starts[i] = off
		off += len(l) + 1
		if !magicAt[i] {
			blank[i] = l
		} else {
			blank[i] = strings.Repeat(" ", len(l))
		}
	}
	src := strings.Join(blank, "\n")
	fset := token.NewFileSet()
	file := fset.AddFile("cell", -1, len(src))
	var sc scanner.Scanner
	sc.Init(file, []byte(src), func(token.Position, string) {}, 0)
	type bracket struct{ off, delta int }
	var bs []bracket
	for {
		pos, tok, _ := sc.Scan()
		if tok == token.EOF {
			break
		}
		switch tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			bs = append(bs, bracket{file.Offset(pos), 1})
		case token.RPAREN, token.RBRACE, token.RBRACK:
			bs = append(bs, bracket{file.Offset(pos), -1})
		}
	}
	for i := range lines {
		if !magicAt[i] {
			continue
		}
		depth := 0
		for _, b := range bs {
			if b.off < starts[i] {
				depth += b.delta
			}
		}
		if depth > 0 {
			return i, true
		}
	}
	return 0, false
}

// multiLineTokens returns the byte spans of the strings and comments of
// code that span lines (a raw string, a /* */ comment).
func multiLineTokens(code string) [][2]int {
	spans := [][2]int{}
	fset := token.NewFileSet()
	file := fset.AddFile("cell", -1, len(code))
	var sc scanner.Scanner
	sc.Init(file, []byte(code), func(token.Position, string) {}, scanner.ScanComments)
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			return spans
		}
		if (tok == token.STRING || tok == token.COMMENT) && strings.Contains(lit, "\n") {
			off := file.Offset(pos)
			spans = append(spans, [2]int{off, off + len(lit)})
		}
	}
}

// splitName splits "name args" at the first blank.
func splitName(s string) (name, args string) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i+1:])
}

func list(prefix string, names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return strings.Join(out, ", ")
}

// UsageErrorName is the name of the error of a magic used wrongly, as
// IPython's.
const UsageErrorName = "UsageError"

func usageError(line int, msg string) *Error {
	return &Error{Name: UsageErrorName, Value: msg, Traceback: []string{UsageErrorName + ": " + msg, fmt.Sprintf("cell line %d", line)}}
}

// runPieces runs a cell that has magics, piece by piece; shown is the
// code whose value is shown (for render).
func (s *Session) runPieces(ps []piece) (vals []xr.Value, types []xr.Type, shown string, err *Error) {
	for _, p := range ps {
		vals, types, shown = nil, nil, ""
		if p.call.name == "" {
			vals, types, err = s.run(p.code)
			shown = p.code
		} else {
			m := magics[p.call.name]
			fn := m.line
			if p.call.bodyLine > 0 {
				fn = m.cell
			}
			vals, types, err = fn(s, p.call)
			shown = p.call.args + p.call.body
		}
		if err != nil {
			return nil, nil, "", err
		}
	}
	return vals, types, shown, nil
}

// isMagicCell reports whether code has a magic line (for IsComplete).
func stripMagics(code string) (rest string, cellMagicOnly bool) {
	lines := strings.Split(code, "\n")
	at := magicLines(code, lines)
	if len(at) == 0 {
		return code, false
	}
	for i := range lines {
		if at[i] {
			lines[i] = ""
		}
	}
	rest = strings.Join(lines, "\n")
	first := strings.TrimSpace(strings.Split(code, "\n")[0])
	return rest, strings.HasPrefix(first, "%%") && len(strings.Split(code, "\n")) == 1
}

// completeMagic completes a magic name at the start of the line holding
// cursor: ok false when the line is not a magic being named.
func completeMagic(code string, cursor int) (start int, matches []string, ok bool) {
	ls := strings.LastIndex(code[:cursor], "\n") + 1
	head := strings.TrimLeft(code[ls:cursor], " \t")
	if !strings.HasPrefix(head, "%") || strings.ContainsAny(head, " \t") {
		return 0, nil, false
	}
	cell := strings.HasPrefix(head, "%%")
	word := strings.TrimLeft(head, "%")
	prefix := "%"
	if cell {
		prefix = "%%"
	}
	for _, n := range magicNames(cell) {
		if strings.HasPrefix(n, word) {
			matches = append(matches, prefix+n)
		}
	}
	return cursor - len(head), matches, true
}

// inspectMagic returns the syntax and purpose of the magic named on the
// line holding cursor, when the cursor is on its name.
func inspectMagic(code string, cursor int) (string, bool) {
	if cursor > len(code) {
		cursor = len(code)
	}
	ls := strings.LastIndex(code[:cursor], "\n") + 1
	le := strings.IndexByte(code[cursor:], '\n')
	if le < 0 {
		le = len(code)
	} else {
		le += cursor
	}
	line := code[ls:le]
	t := strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(t, "%") {
		return "", false
	}
	name, _ := splitName(strings.TrimLeft(t, "%"))
	nameEnd := ls + (len(line) - len(t)) + strings.Index(t, name) + len(name)
	m := magics[name]
	if m == nil || cursor > nameEnd {
		return "", false
	}
	return m.usage + "\n    " + m.doc, true
}
