package pglive

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine/filter"
)

// JSONPath converts a filter of the Spring AI filter language (as
// engine/filter parses it) into the jsonpath Spring AI's
// PgVectorFilterExpressionConverter generates, e.g. "category == 'c3' &&
// year >= 2022" → `$.category == "c3" && $.year >= 2022`. in and nin expand
// to a disjunction of equalities (jsonpath has no IN), as the converter
// does. The result goes inside '…'::jsonpath; [SQLPredicate] quotes it.
func JSONPath(text string) (string, error) {
	e, err := filter.Parse(text)
	if err != nil {
		return "", fmt.Errorf("pglive: filter %q: %v: %w", text, err, ErrBadArgument)
	}
	var b strings.Builder
	if err := writePath(&b, e, 0); err != nil {
		return "", fmt.Errorf("pglive: filter %q: %v: %w", text, err, ErrBadArgument)
	}
	return b.String(), nil
}

// SQLPredicate is Spring AI's WHERE clause for a filter:
// metadata::jsonb @@ '<jsonpath>'::jsonpath ("" for an empty filter).
func SQLPredicate(text string) (string, error) {
	if strings.TrimSpace(text) == "" {
		return "", nil
	}
	p, err := JSONPath(text)
	if err != nil {
		return "", err
	}
	return "metadata::jsonb @@ '" + strings.ReplaceAll(p, "'", "''") + "'::jsonpath", nil
}

func writePath(b *strings.Builder, e *filter.Expr, parent int) error {
	switch e.Node {
	case filter.NodeCompare:
		return writeCompare(b, e)
	case filter.NodeAnd, filter.NodeOr:
		prec, sep := 2, " && "
		if e.Node == filter.NodeOr {
			prec, sep = 1, " || "
		}
		if parent > prec {
			b.WriteByte('(')
		}
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(sep)
			}
			if err := writePath(b, a, prec+1); err != nil {
				return err
			}
		}
		if parent > prec {
			b.WriteByte(')')
		}
	case filter.NodeNot:
		if len(e.Args) != 1 {
			return fmt.Errorf("not with %d operands", len(e.Args))
		}
		b.WriteString("!(")
		if err := writePath(b, e.Args[0], 0); err != nil {
			return err
		}
		b.WriteByte(')')
	default:
		return fmt.Errorf("unknown node %d", e.Node)
	}
	return nil
}

func writeCompare(b *strings.Builder, e *filter.Expr) error {
	field := "$." + e.Field
	if !plainName(e.Field) {
		field = "$." + strconv.Quote(e.Field)
	}
	if len(e.Values) == 0 {
		return fmt.Errorf("%s %s without a value", e.Field, e.Op)
	}
	if e.Op == filter.OpIn || e.Op == filter.OpNin {
		if e.Op == filter.OpNin {
			b.WriteString("!")
		}
		b.WriteByte('(')
		for i, v := range e.Values {
			if i > 0 {
				b.WriteString(" || ")
			}
			lit, err := literal(v)
			if err != nil {
				return err
			}
			b.WriteString(field + " == " + lit)
		}
		b.WriteByte(')')
		return nil
	}
	op := e.Op.String()
	lit, err := literal(e.Values[0])
	if err != nil {
		return err
	}
	b.WriteString(field + " " + op + " " + lit)
	return nil
}

func literal(v filter.Value) (string, error) {
	switch v.Kind {
	case filter.KindKeyword:
		return strconv.Quote(v.Str), nil
	case filter.KindInteger:
		return strconv.FormatInt(v.Int, 10), nil
	case filter.KindFloat:
		return strconv.FormatFloat(v.Float, 'g', -1, 64), nil
	case filter.KindBool:
		return strconv.FormatBool(v.Bool), nil
	}
	return "", fmt.Errorf("value of kind %v has no jsonpath literal", v.Kind)
}

func plainName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}
