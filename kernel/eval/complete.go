package eval

import (
	"fmt"
	"go/scanner"
	"go/token"
	"reflect"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cosmos72/gomacro/imports"

	"github.com/veclab/veclab/kernel/bindings"
	"github.com/veclab/veclab/kernel/display"
)

// Complete implements Interpreter with gomacro's word completion.
func (s *Session) Complete(code string, cursor int) (start, end int, matches []string) {
	if cursor < 0 || cursor > len(code) {
		cursor = len(code)
	}
	defer func() {
		if recover() != nil {
			start, end, matches = cursor, cursor, nil
		}
	}()
	if start, ms, ok := completeMagic(code, cursor); ok {
		return start, cursor, ms
	}
	head, completions, _ := s.ir.CompleteWords(code[:cursor], cursor)
	return len(head), cursor, completions
}

// wordAt returns the dotted identifier around cursor (a byte offset).
func wordAt(code string, cursor int) string {
	if cursor > len(code) {
		cursor = len(code)
	}
	isWord := func(r rune) bool { return r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	a := cursor
	for a > 0 {
		r, n := utf8.DecodeLastRuneInString(code[:a])
		if !isWord(r) {
			break
		}
		a -= n
	}
	b := cursor
	for b < len(code) {
		r, n := utf8.DecodeRuneInString(code[b:])
		if !isWord(r) {
			break
		}
		b += n
	}
	return strings.Trim(code[a:b], ".")
}

// pathOf returns the import path of a package known by name.
func pathOf(name string) string {
	for p, pkg := range bindings.Packages {
		if pkg.Name == name {
			return p
		}
	}
	if _, ok := imports.Packages[name]; ok { // standard library by path
		return name
	}
	for p, pkg := range imports.Packages {
		if pkg.Name == name && !strings.Contains(p, ".") {
			return p
		}
	}
	return ""
}

// Inspect implements Interpreter: the doc comment of a bound package
// symbol (pkg.Name, pkg.Type.Method), of a variable's type and method, or
// the signature of a standard-library symbol.
func (s *Session) Inspect(code string, cursor int) (b Bundle, found bool) {
	defer func() {
		if recover() != nil {
			b, found = nil, false
		}
	}()
	if text, ok := inspectMagic(code, cursor); ok {
		return Bundle{display.MIMEText: text}, true
	}
	w := wordAt(code, cursor)
	if w == "" {
		return nil, false
	}
	parts := strings.Split(w, ".")
	var text string
	if p := pathOf(parts[0]); p != "" {
		key := strings.Join(append([]string{p}, parts[1:]...), ".")
		if d, ok := bindings.Docs[key]; ok {
			text = d
		} else if len(parts) >= 2 {
			if pkg, ok := imports.Packages[p]; ok {
				if v, ok := pkg.Binds[parts[1]]; ok {
					text = fmt.Sprintf("%s.%s %s", parts[0], parts[1], v.Type())
				} else if t, ok := pkg.Types[parts[1]]; ok {
					text = fmt.Sprintf("type %s.%s %s", parts[0], parts[1], t.Kind())
				}
			}
		} else {
			text = "package " + parts[0] + " // import \"" + p + "\""
		}
	} else if v := s.ir.ValueOf(parts[0]); v.IsValid() {
		rv := v.ReflectValue()
		t := rv.Type()
		text = fmt.Sprintf("%s %s", parts[0], t)
		base := t
		for base.Kind() == reflect.Pointer {
			base = base.Elem()
		}
		key := base.PkgPath() + "." + base.Name()
		if len(parts) >= 2 {
			key += "." + parts[1]
		}
		if d, ok := bindings.Docs[key]; ok {
			text += "\n\n" + d
		} else if len(parts) == 1 && rv.CanInterface() {
			text += " = " + trunc(display.Text(rv.Interface()), 2000)
		}
	}
	if text == "" {
		return nil, false
	}
	return Bundle{display.MIMEText: text}, true
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// IsComplete implements Interpreter by scanning brackets, strings and
// comments: unclosed ones mean "incomplete", stray closers "invalid".
func (s *Session) IsComplete(code string) (status, indent string) {
	// Magic lines are complete as they stand; a lone %%magic line waits
	// for its body, as IPython's.
	rest, cellOnly := stripMagics(code)
	if cellOnly {
		return "incomplete", ""
	}
	return isComplete(rest)
}

func isComplete(code string) (status, indent string) {
	fset := token.NewFileSet()
	file := fset.AddFile("cell", -1, len(code))
	var errs scanner.ErrorList
	var sc scanner.Scanner
	sc.Init(file, []byte(code), func(pos token.Position, msg string) { errs.Add(pos, msg) }, scanner.ScanComments)
	depth := 0
	var last token.Token
	for {
		_, tok, _ := sc.Scan()
		if tok == token.EOF {
			break
		}
		switch tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
			if depth < 0 {
				return "invalid", ""
			}
		}
		if tok != token.SEMICOLON && tok != token.COMMENT {
			last = tok
		}
	}
	for _, e := range errs {
		if strings.Contains(e.Msg, "not terminated") {
			return "incomplete", ""
		}
	}
	if len(errs) > 0 {
		return "invalid", ""
	}
	if depth > 0 {
		return "incomplete", strings.Repeat("\t", depth)
	}
	switch last {
	case token.ADD, token.SUB, token.MUL, token.QUO, token.REM, token.AND, token.OR, token.XOR,
		token.LAND, token.LOR, token.ASSIGN, token.DEFINE, token.COMMA, token.PERIOD:
		return "incomplete", ""
	}
	return "complete", ""
}

// pagerRE matches IPython's inspection syntax: a name or selector with one
// or two question marks before or after it (`hnsw.New?`, `??idx`).
var pagerRE = regexp.MustCompile(`^\s*(?:(\?{1,2})\s*([A-Za-z_][\w.]*)|([A-Za-z_][\w.]*)\s*(\?{1,2}))\s*$`)

// PagerQuery reports whether code is an inspection request rather than Go
// (`x?`, `x??`, `?x`, `??x`) and returns the expression to inspect. The
// kernel answers such a cell with the documentation as a pager payload
// (execute_reply payload source "page"), as IPython does, instead of
// compiling it.
func PagerQuery(code string) (expr string, ok bool) {
	m := pagerRE.FindStringSubmatch(code)
	if m == nil {
		return "", false
	}
	if m[2] != "" {
		return strings.TrimSuffix(m[2], "."), true
	}
	return strings.TrimSuffix(m[3], "."), true
}
