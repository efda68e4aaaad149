package filter

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The grammar (Spring AI's Filters.g4, restated; keywords are accepted in
// upper or lower case):
//
//	expr    = or
//	or      = and { ("||" | "OR") and }
//	and     = unary { ("&&" | "AND") unary }
//	unary   = ("!" | "NOT") unary | "(" expr ")" | compare
//	compare = ident ("==" | "!=" | "<" | "<=" | ">" | ">=") literal
//	        | ident ("IN" | "NIN" | "NOT IN") "[" literal { "," literal } "]"
//	literal = 'string' | "string" | number | true | false
//	ident   = letter { letter | digit | "_" | "." }
//
// Strings take backslash escapes (\' \" \\ \n \t). Numbers without '.', 'e'
// or 'E' are integers.

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tString
	tNumber
	tOp     // == != < <= > >=
	tAnd    // && AND
	tOr     // || OR
	tNot    // ! NOT
	tIn     // IN
	tNin    // NIN
	tTrue   // true
	tFalse  // false
	tLParen // (
	tRParen // )
	tLBrack // [
	tRBrack // ]
	tComma  // ,
)

type token struct {
	kind tokKind
	text string // identifier, operator, raw number, decoded string
	col  int    // 1-based
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return "string " + strconv.Quote(t.text)
	}
	return strconv.Quote(t.text)
}

type lexer struct {
	src string
	pos int
}

func syntaxErr(col int, format string, args ...any) error {
	return &PosError{Col: col, Msg: fmt.Sprintf(format, args...), Err: ErrSyntax}
}

func identStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }
func identPart(r rune) bool {
	return r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) && (l.src[l.pos] == ' ' || l.src[l.pos] == '\t' || l.src[l.pos] == '\n' || l.src[l.pos] == '\r') {
		l.pos++
	}
	col := l.pos + 1
	if l.pos >= len(l.src) {
		return token{kind: tEOF, col: col}, nil
	}
	c := l.src[l.pos]
	two := ""
	if l.pos+1 < len(l.src) {
		two = l.src[l.pos : l.pos+2]
	}
	switch {
	case two == "==" || two == "!=" || two == "<=" || two == ">=":
		l.pos += 2
		return token{kind: tOp, text: two, col: col}, nil
	case two == "&&":
		l.pos += 2
		return token{kind: tAnd, text: two, col: col}, nil
	case two == "||":
		l.pos += 2
		return token{kind: tOr, text: two, col: col}, nil
	case c == '<' || c == '>':
		l.pos++
		return token{kind: tOp, text: string(c), col: col}, nil
	case c == '!':
		l.pos++
		return token{kind: tNot, text: "!", col: col}, nil
	case c == '(':
		l.pos++
		return token{kind: tLParen, text: "(", col: col}, nil
	case c == ')':
		l.pos++
		return token{kind: tRParen, text: ")", col: col}, nil
	case c == '[':
		l.pos++
		return token{kind: tLBrack, text: "[", col: col}, nil
	case c == ']':
		l.pos++
		return token{kind: tRBrack, text: "]", col: col}, nil
	case c == ',':
		l.pos++
		return token{kind: tComma, text: ",", col: col}, nil
	case c == '\'' || c == '"':
		return l.str(c, col)
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return l.number(col)
	case c == '=':
		return token{}, syntaxErr(col, "found '=', expected '==' (equality is written ==)")
	case c == '&':
		return token{}, syntaxErr(col, "found '&', expected '&&'")
	case c == '|':
		return token{}, syntaxErr(col, "found '|', expected '||'")
	}
	r, size := utf8.DecodeRuneInString(l.src[l.pos:])
	if r == utf8.RuneError && size <= 1 {
		return token{}, syntaxErr(col, "invalid UTF-8 byte 0x%02x", c)
	}
	if !identStart(r) {
		return token{}, syntaxErr(col, "unexpected character %q, expected a field name, literal, operator or parenthesis", r)
	}
	start := l.pos
	for l.pos < len(l.src) {
		r, size := utf8.DecodeRuneInString(l.src[l.pos:])
		if !identPart(r) || (r == utf8.RuneError && size <= 1) {
			break
		}
		l.pos += size
	}
	word := l.src[start:l.pos]
	switch strings.ToUpper(word) {
	case "AND":
		return token{kind: tAnd, text: word, col: col}, nil
	case "OR":
		return token{kind: tOr, text: word, col: col}, nil
	case "NOT":
		return token{kind: tNot, text: word, col: col}, nil
	case "IN":
		return token{kind: tIn, text: word, col: col}, nil
	case "NIN":
		return token{kind: tNin, text: word, col: col}, nil
	case "TRUE":
		return token{kind: tTrue, text: word, col: col}, nil
	case "FALSE":
		return token{kind: tFalse, text: word, col: col}, nil
	}
	return token{kind: tIdent, text: word, col: col}, nil
}

func (l *lexer) str(quote byte, col int) (token, error) {
	l.pos++ // opening quote
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch c {
		case quote:
			l.pos++
			if !utf8.ValidString(b.String()) {
				return token{}, syntaxErr(col, "string literal is not valid UTF-8")
			}
			return token{kind: tString, text: b.String(), col: col}, nil
		case '\\':
			if l.pos+1 >= len(l.src) {
				return token{}, syntaxErr(l.pos+1, "unterminated escape in string literal")
			}
			e := l.src[l.pos+1]
			switch e {
			case '\'', '"', '\\':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				return token{}, syntaxErr(l.pos+1, "unknown escape \\%c in string literal (want \\' \\\" \\\\ \\n \\t \\r)", e)
			}
			l.pos += 2
		default:
			b.WriteByte(c)
			l.pos++
		}
	}
	return token{}, syntaxErr(col, "unterminated string literal, expected closing %c", quote)
}

func (l *lexer) number(col int) (token, error) {
	start := l.pos
	if c := l.src[l.pos]; c == '-' || c == '+' {
		l.pos++
	}
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '_' {
			l.pos++
			continue
		}
		if (c == '-' || c == '+') && (l.src[l.pos-1] == 'e' || l.src[l.pos-1] == 'E') {
			l.pos++
			continue
		}
		break
	}
	text := l.src[start:l.pos]
	if text == "-" || text == "+" {
		return token{}, syntaxErr(col, "found %q, expected a number", text)
	}
	return token{kind: tNumber, text: text, col: col}, nil
}

func numberValue(t token) (Value, error) {
	if strings.Contains(t.text, "_") {
		return Value{}, syntaxErr(t.col, "invalid number %q, expected digits", t.text)
	}
	if !strings.ContainsAny(t.text, ".eE") {
		i, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			return Value{}, syntaxErr(t.col, "invalid integer %q (expected a 64-bit integer)", t.text)
		}
		return Int(i), nil
	}
	f, err := strconv.ParseFloat(t.text, 64)
	if err != nil {
		return Value{}, syntaxErr(t.col, "invalid number %q, expected a decimal number", t.text)
	}
	return Float(f), nil
}

type parser struct {
	lex   lexer
	tok   token
	depth int
}

// maxDepth bounds nesting so a hostile input cannot exhaust the stack.
const maxDepth = 200

// Parse reads a filter expression in the portable syntax. Errors are
// *PosError values naming the column and what was expected.
func Parse(text string) (*Expr, error) {
	p := &parser{lex: lexer{src: text}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tEOF {
		return nil, syntaxErr(p.tok.col, "empty filter, expected an expression such as category == 'c3'")
	}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, syntaxErr(p.tok.col, "unexpected %s, expected && / AND, || / OR or end of input", p.tok.describe())
	}
	return e, nil
}

// MustParse is Parse for constant expressions in examples and tests; it
// panics on error.
func MustParse(text string) *Expr {
	e, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return e
}

func (p *parser) advance() error {
	t, err := p.lex.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) or() (*Expr, error) {
	first, err := p.and()
	if err != nil {
		return nil, err
	}
	args := []*Expr{first}
	for p.tok.kind == tOr {
		if err := p.advance(); err != nil {
			return nil, err
		}
		e, err := p.and()
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	return nary(NodeOr, args), nil
}

func (p *parser) and() (*Expr, error) {
	first, err := p.unary()
	if err != nil {
		return nil, err
	}
	args := []*Expr{first}
	for p.tok.kind == tAnd {
		if err := p.advance(); err != nil {
			return nil, err
		}
		e, err := p.unary()
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	return nary(NodeAnd, args), nil
}

func (p *parser) unary() (*Expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, syntaxErr(p.tok.col, "expression nested deeper than %d levels", maxDepth)
	}
	switch p.tok.kind {
	case tNot:
		col := p.tok.col
		if err := p.advance(); err != nil {
			return nil, err
		}
		e, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &Expr{Node: NodeNot, Args: []*Expr{e}, Col: col}, nil
	case tLParen:
		if err := p.advance(); err != nil {
			return nil, err
		}
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tRParen {
			return nil, syntaxErr(p.tok.col, "unexpected %s, expected ')'", p.tok.describe())
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		return e, nil
	case tIdent:
		return p.compare()
	}
	return nil, syntaxErr(p.tok.col, "unexpected %s, expected a field name, '(' or NOT", p.tok.describe())
}

func (p *parser) compare() (*Expr, error) {
	field := p.tok
	if err := p.advance(); err != nil {
		return nil, err
	}
	e := &Expr{Node: NodeCompare, Field: field.text, Col: field.col}
	switch p.tok.kind {
	case tOp:
		switch p.tok.text {
		case "==":
			e.Op = OpEq
		case "!=":
			e.Op = OpNe
		case "<":
			e.Op = OpLt
		case "<=":
			e.Op = OpLe
		case ">":
			e.Op = OpGt
		case ">=":
			e.Op = OpGe
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		e.ValueCol = p.tok.col
		v, err := p.literal()
		if err != nil {
			return nil, err
		}
		e.Values = []Value{v}
		return e, nil
	case tIn, tNin, tNot:
		e.Op = OpIn
		if p.tok.kind == tNin {
			e.Op = OpNin
		}
		if p.tok.kind == tNot { // NOT IN
			if err := p.advance(); err != nil {
				return nil, err
			}
			if p.tok.kind != tIn {
				return nil, syntaxErr(p.tok.col, "unexpected %s after %s NOT, expected IN", p.tok.describe(), field.text)
			}
			e.Op = OpNin
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind != tLBrack {
			return nil, syntaxErr(p.tok.col, "unexpected %s, expected '[' to open the list of %s", p.tok.describe(), e.Op)
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		e.ValueCol = p.tok.col
		for {
			v, err := p.literal()
			if err != nil {
				return nil, err
			}
			e.Values = append(e.Values, v)
			if p.tok.kind == tComma {
				if err := p.advance(); err != nil {
					return nil, err
				}
				continue
			}
			if p.tok.kind == tRBrack {
				if err := p.advance(); err != nil {
					return nil, err
				}
				return e, nil
			}
			return nil, syntaxErr(p.tok.col, "unexpected %s, expected ',' or ']'", p.tok.describe())
		}
	}
	return nil, syntaxErr(p.tok.col, "unexpected %s after field %s, expected ==, !=, <, <=, >, >=, in or nin", p.tok.describe(), field.text)
}

func (p *parser) literal() (Value, error) {
	t := p.tok
	var v Value
	switch t.kind {
	case tString:
		v = Str(t.text)
	case tNumber:
		var err error
		if v, err = numberValue(t); err != nil {
			return Value{}, err
		}
	case tTrue:
		v = Bool(true)
	case tFalse:
		v = Bool(false)
	default:
		return Value{}, syntaxErr(t.col, "unexpected %s, expected a literal (quoted string, number, true or false)", t.describe())
	}
	if err := p.advance(); err != nil {
		return Value{}, err
	}
	return v, nil
}
