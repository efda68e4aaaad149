package filter

import (
	"errors"
	"fmt"
	"strings"

	"github.com/veclab/veclab/engine"
)

// Op is a comparison operator of the filter language.
type Op uint8

// The operators. In and Nin take a list of literals.
const (
	OpEq Op = iota + 1
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpIn
	OpNin
)

var opNames = [...]string{OpEq: "==", OpNe: "!=", OpLt: "<", OpLe: "<=", OpGt: ">", OpGe: ">=", OpIn: "in", OpNin: "nin"}

// String returns the operator as the language writes it.
func (o Op) String() string {
	if o > 0 && int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", o)
}

// Node says what an Expr is.
type Node uint8

// The node types.
const (
	NodeCompare Node = iota + 1 // Field Op Values
	NodeAnd                     // all of Args
	NodeOr                      // any of Args
	NodeNot                     // not Args[0]
)

// Expr is a filter expression: a tree built by [Parse] or by the builder
// functions ([Eq], [And], …). It is one non-generic struct type so that
// notebooks (the gomacro interpreter) can build and print it.
type Expr struct {
	Node   Node
	Field  string  // NodeCompare
	Op     Op      // NodeCompare
	Values []Value // NodeCompare: one literal, or the list of in / nin
	Args   []*Expr // NodeAnd, NodeOr (two or more), NodeNot (one)

	// Col is the 1-based column of the field (or operator) in the parsed
	// text, 0 for builder expressions; ValueCol is the column of the first
	// literal. Errors name them.
	Col, ValueCol int

	err error // a builder argument that could not be converted
}

// String prints e in the portable syntax; Parse(e.String()) gives back an
// equal expression.
func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b, 0)
	return b.String()
}

// precedence: or 1, and 2, not/compare 3.
func (e *Expr) write(b *strings.Builder, parent int) {
	if e == nil {
		b.WriteString("<nil>")
		return
	}
	switch e.Node {
	case NodeCompare:
		b.WriteString(e.Field)
		b.WriteByte(' ')
		b.WriteString(e.Op.String())
		b.WriteByte(' ')
		if e.Op == OpIn || e.Op == OpNin {
			b.WriteByte('[')
			for i, v := range e.Values {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(v.String())
			}
			b.WriteByte(']')
		} else if len(e.Values) > 0 {
			b.WriteString(e.Values[0].String())
		}
	case NodeAnd, NodeOr:
		prec, sep := 2, " && "
		if e.Node == NodeOr {
			prec, sep = 1, " || "
		}
		if parent > prec {
			b.WriteByte('(')
		}
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(sep)
			}
			a.write(b, prec+1)
		}
		if parent > prec {
			b.WriteByte(')')
		}
	case NodeNot:
		b.WriteString("!(")
		if len(e.Args) > 0 {
			e.Args[0].write(b, 0)
		}
		b.WriteByte(')')
	default:
		b.WriteString("<invalid>")
	}
}

// Fields returns the distinct field names e mentions, in first-seen order.
func (e *Expr) Fields() []string {
	var out []string
	seen := map[string]bool{}
	var walk func(*Expr)
	walk = func(x *Expr) {
		if x == nil {
			return
		}
		if x.Node == NodeCompare && !seen[x.Field] {
			seen[x.Field] = true
			out = append(out, x.Field)
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(e)
	return out
}

// Equal reports whether two expressions are the same tree (positions ignored).
func (e *Expr) Equal(o *Expr) bool {
	if e == nil || o == nil {
		return e == o
	}
	if e.Node != o.Node || e.Field != o.Field || e.Op != o.Op || len(e.Values) != len(o.Values) || len(e.Args) != len(o.Args) {
		return false
	}
	for i := range e.Values {
		a, b := e.Values[i], o.Values[i]
		if a.Kind != b.Kind || a.Str != b.Str || a.Int != b.Int || a.Bool != b.Bool || !(a.Float == b.Float) {
			return false
		}
	}
	for i := range e.Args {
		if !e.Args[i].Equal(o.Args[i]) {
			return false
		}
	}
	return true
}

// validate checks the tree's shape (builder expressions can be malformed).
func (e *Expr) validate() error {
	if e == nil {
		return fmt.Errorf("filter: nil expression: %w", ErrSyntax)
	}
	if e.err != nil {
		return e.err
	}
	switch e.Node {
	case NodeCompare:
		if e.Field == "" {
			return fmt.Errorf("filter: comparison without a field name: %w", ErrSyntax)
		}
		switch e.Op {
		case OpIn, OpNin:
			if len(e.Values) == 0 {
				return fmt.Errorf("filter: %s %s needs at least one value: %w", e.Field, e.Op, ErrSyntax)
			}
		case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
			if len(e.Values) != 1 {
				return fmt.Errorf("filter: %s %s needs exactly one value, got %d: %w", e.Field, e.Op, len(e.Values), ErrSyntax)
			}
		default:
			return fmt.Errorf("filter: invalid operator %d on field %s: %w", e.Op, e.Field, ErrSyntax)
		}
	case NodeAnd, NodeOr:
		if len(e.Args) == 0 {
			return fmt.Errorf("filter: empty AND/OR: %w", ErrSyntax)
		}
		for _, a := range e.Args {
			if err := a.validate(); err != nil {
				return err
			}
		}
	case NodeNot:
		if len(e.Args) != 1 {
			return fmt.Errorf("filter: NOT takes one operand, got %d: %w", len(e.Args), ErrSyntax)
		}
		return e.Args[0].validate()
	default:
		return fmt.Errorf("filter: invalid node type %d: %w", e.Node, ErrSyntax)
	}
	return nil
}

// Errors of the filter language. Each wraps engine.ErrInvalidArgument
// (errors.Is holds for both) and is itself wrapped with the column and what
// was expected.
var (
	ErrSyntax       error = &langError{"filter: syntax error"}
	ErrType         error = &langError{"filter: type error"}
	ErrUnknownField error = &langError{"filter: not allowed filter identifier name"}
)

// langError is a sentinel of the filter language: its message is its own,
// and it unwraps to engine.ErrInvalidArgument.
type langError struct{ msg string }

func (e *langError) Error() string { return e.msg }
func (e *langError) Unwrap() error { return engine.ErrInvalidArgument }

// PosError is an error at a column of the filter text.
type PosError struct {
	Col int    // 1-based column, 0 when the expression came from the builder
	Msg string // what was wrong and what was expected
	Err error  // ErrSyntax, ErrType or ErrUnknownField
}

func (e *PosError) Error() string {
	if e.Err == ErrUnknownField && e.Col > 0 {
		return fmt.Sprintf("%v: %s (column %d)", e.Err, e.Msg, e.Col)
	}
	if e.Col > 0 {
		return fmt.Sprintf("%v at column %d: %s", e.Err, e.Col, e.Msg)
	}
	return fmt.Sprintf("%v: %s", e.Err, e.Msg)
}

func (e *PosError) Unwrap() error { return e.Err }

// IsUnknownField reports whether err refuses a field the schema does not declare.
func IsUnknownField(err error) bool { return errors.Is(err, ErrUnknownField) }

// ---- builder ----

func cmp(field string, op Op, vals ...any) *Expr {
	e := &Expr{Node: NodeCompare, Field: field, Op: op}
	for i, x := range vals {
		v, err := ValueOf(x)
		if err != nil {
			e.err = fmt.Errorf("filter: %s %s: value %d: %v: %w", field, op, i+1, err, ErrType)
			return e
		}
		e.Values = append(e.Values, v)
	}
	return e
}

// Eq builds `field == v`; v is a string, bool, integer, float or Value.
func Eq(field string, v any) *Expr { return cmp(field, OpEq, v) }

// Ne builds `field != v`.
func Ne(field string, v any) *Expr { return cmp(field, OpNe, v) }

// Lt builds `field < v`.
func Lt(field string, v any) *Expr { return cmp(field, OpLt, v) }

// Le builds `field <= v`.
func Le(field string, v any) *Expr { return cmp(field, OpLe, v) }

// Gt builds `field > v`.
func Gt(field string, v any) *Expr { return cmp(field, OpGt, v) }

// Ge builds `field >= v`.
func Ge(field string, v any) *Expr { return cmp(field, OpGe, v) }

// In builds `field in [vs...]`.
func In(field string, vs ...any) *Expr { return cmp(field, OpIn, vs...) }

// Nin builds `field nin [vs...]`.
func Nin(field string, vs ...any) *Expr { return cmp(field, OpNin, vs...) }

// And builds the conjunction of es (flattening nested ANDs).
func And(es ...*Expr) *Expr { return nary(NodeAnd, es) }

// Or builds the disjunction of es (flattening nested ORs).
func Or(es ...*Expr) *Expr { return nary(NodeOr, es) }

// Not builds `!(e)`.
func Not(e *Expr) *Expr { return &Expr{Node: NodeNot, Args: []*Expr{e}} }

func nary(n Node, es []*Expr) *Expr {
	if len(es) == 1 {
		return es[0]
	}
	out := &Expr{Node: n}
	for _, e := range es {
		if e != nil && e.Node == n && e.err == nil {
			out.Args = append(out.Args, e.Args...)
		} else {
			out.Args = append(out.Args, e)
		}
	}
	return out
}
