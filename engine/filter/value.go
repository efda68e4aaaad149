package filter

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/veclab/veclab/engine"
)

// Kind is the type of a metadata field or a literal.
type Kind uint8

// The kinds. KindNone is the zero value: a field the store has not seen.
const (
	KindNone    Kind = iota
	KindKeyword      // a string compared for equality (a tag)
	KindInteger      // int64
	KindFloat        // float64
	KindBool
)

var kindNames = [...]string{KindNone: "none", KindKeyword: "keyword", KindInteger: "integer", KindFloat: "float", KindBool: "bool"}

// String returns the kind's name as ParseKind reads it.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ParseKind reads "keyword" (or "tag", "string"), "integer" ("int"),
// "float" ("numeric", "double") or "bool".
func ParseKind(s string) (Kind, error) {
	switch s {
	case "keyword", "tag", "string", "text":
		return KindKeyword, nil
	case "integer", "int":
		return KindInteger, nil
	case "float", "numeric", "double":
		return KindFloat, nil
	case "bool", "boolean":
		return KindBool, nil
	}
	return KindNone, fmt.Errorf("filter: unknown field kind %q (want keyword, integer, float or bool): %w", s, engine.ErrInvalidArgument)
}

func (k Kind) numeric() bool { return k == KindInteger || k == KindFloat }

// Value is one metadata value or filter literal.
type Value struct {
	Kind  Kind
	Str   string
	Int   int64
	Float float64
	Bool  bool
}

// Str returns a keyword value; Int, Float and Bool likewise.
func Str(s string) Value     { return Value{Kind: KindKeyword, Str: s} }
func Int(i int64) Value      { return Value{Kind: KindInteger, Int: i} }
func Float(f float64) Value  { return Value{Kind: KindFloat, Float: f} }
func Bool(b bool) Value      { return Value{Kind: KindBool, Bool: b} }
func (v Value) num() float64 { return numOf(v) }

func numOf(v Value) float64 {
	if v.Kind == KindInteger {
		return float64(v.Int)
	}
	return v.Float
}

// String returns v as a literal of the filter language.
func (v Value) String() string {
	switch v.Kind {
	case KindKeyword:
		return quote(v.Str)
	case KindInteger:
		return strconv.FormatInt(v.Int, 10)
	case KindFloat:
		s := strconv.FormatFloat(v.Float, 'g', -1, 64)
		for _, c := range s {
			if c == '.' || c == 'e' || c == 'E' || c == 'I' || c == 'N' {
				return s
			}
		}
		return s + ".0"
	case KindBool:
		return strconv.FormatBool(v.Bool)
	}
	return "<none>"
}

var errUnsupported = errors.New("unsupported value type")

// ValueOf converts a Go value (string, bool, any integer or float type, or a
// Value) to a Value. NaN and infinite floats are refused.
func ValueOf(x any) (Value, error) {
	switch t := x.(type) {
	case Value:
		return t, nil
	case string:
		return Str(t), nil
	case bool:
		return Bool(t), nil
	case int:
		return Int(int64(t)), nil
	case int8:
		return Int(int64(t)), nil
	case int16:
		return Int(int64(t)), nil
	case int32:
		return Int(int64(t)), nil
	case int64:
		return Int(t), nil
	case uint8:
		return Int(int64(t)), nil
	case uint16:
		return Int(int64(t)), nil
	case uint32:
		return Int(int64(t)), nil
	case uint:
		if uint64(t) > math.MaxInt64 {
			return Value{}, fmt.Errorf("integer %d overflows int64", t)
		}
		return Int(int64(t)), nil
	case uint64:
		if t > math.MaxInt64 {
			return Value{}, fmt.Errorf("integer %d overflows int64", t)
		}
		return Int(int64(t)), nil
	case float32:
		return floatValue(float64(t))
	case float64:
		return floatValue(t)
	case nil:
		return Value{}, fmt.Errorf("nil value")
	}
	return Value{}, fmt.Errorf("filter: %T: %w", x, errUnsupported)
}

func floatValue(f float64) (Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{}, fmt.Errorf("non-finite float %v", f)
	}
	return Float(f), nil
}

// goValue converts back to the Go value stored in msgpack.
func (v Value) goValue() any {
	switch v.Kind {
	case KindKeyword:
		return v.Str
	case KindInteger:
		return v.Int
	case KindFloat:
		return v.Float
	case KindBool:
		return v.Bool
	}
	return nil
}

// compatible reports whether a literal of kind lit can be compared with a
// field of kind field.
func compatible(field, lit Kind) bool {
	if field == lit {
		return true
	}
	return field.numeric() && lit.numeric()
}

// compare returns -1, 0, +1 comparing a and b of compatible kinds.
func compare(a, b Value) int {
	switch {
	case a.Kind == KindKeyword:
		switch {
		case a.Str < b.Str:
			return -1
		case a.Str > b.Str:
			return 1
		}
		return 0
	case a.Kind == KindBool:
		if a.Bool == b.Bool {
			return 0
		}
		if !a.Bool {
			return -1
		}
		return 1
	case a.Kind == KindInteger && b.Kind == KindInteger:
		switch {
		case a.Int < b.Int:
			return -1
		case a.Int > b.Int:
			return 1
		}
		return 0
	}
	x, y := a.num(), b.num()
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// quote writes s as a double-quoted literal using only the escapes the
// lexer reads (\" \\ \n \t \r); other characters are written as they are.
func quote(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}
