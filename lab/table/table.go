package table

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/veclab/veclab/lab/metrics"
)

// ErrShape is returned when a row does not have one cell per column.
var ErrShape = errors.New("table: row has the wrong number of cells")

// Align is the horizontal alignment of a column.
type Align uint8

// The alignments. Auto puts numbers right and text left.
const (
	Auto Align = iota
	Left
	Right
	Center
)

var alignNames = [...]string{Auto: "auto", Left: "left", Right: "right", Center: "center"}

// String returns the alignment's name.
func (a Align) String() string {
	if int(a) < len(alignNames) {
		return alignNames[a]
	}
	return fmt.Sprintf("Align(%d)", a)
}

// Source says where the figures of a column come from.
type Source uint8

// The sources. A column of an article's figures is marked Article and its
// header says "(article)"; the lab's own measurement beside it is Lab.
const (
	Plain   Source = iota // neither: labels, settings, derived values
	Article               // quoted from the article, never measured here
	Lab                   // measured by the lab in this run
	// Live is measured in this run on the real system the lab emulates
	// (lab/pglive: a real PostgreSQL with pgvector), beside the lab's
	// column; its header says "(real pgvector)".
	Live
)

var sourceNames = [...]string{Plain: "", Article: "article", Lab: "lab", Live: "real pgvector"}

// String returns "article", "lab", "real pgvector" or "" for Plain.
func (s Source) String() string {
	if int(s) < len(sourceNames) {
		return sourceNames[s]
	}
	return fmt.Sprintf("Source(%d)", s)
}

// Column describes one column.
type Column struct {
	Header string // e.g. "recall@10", "p50"
	Unit   string // e.g. "ms", "docs/s"; "" for none
	Align  Align
	Source Source
	// Prec is the number of decimals for float values added with
	// [Table.AddValues]: > 0 that many, < 0 none, 0 automatic (3 decimals
	// below 1, 2 below 10, 1 below 100, none above).
	Prec int
}

// Label is the header as printed: Header, then Unit, then "(article)" or
// "(lab)" for sourced columns, e.g. "p50 ms (article)".
func (c Column) Label() string {
	s := c.Header
	if c.Unit != "" {
		if s != "" {
			s += " "
		}
		s += c.Unit
	}
	if c.Source != Plain {
		s += " (" + c.Source.String() + ")"
	}
	return s
}

// Col returns a plain column with a header and an optional unit.
func Col(header, unit string) Column { return Column{Header: header, Unit: unit} }

// Pair returns the article/lab column pair for one measure: the article's
// figure first, the lab's beside it, both with prec decimals (see
// [Column.Prec]).
func Pair(header, unit string, prec int) []Column {
	return []Column{
		{Header: header, Unit: unit, Source: Article, Prec: prec, Align: Right},
		{Header: header, Unit: unit, Source: Lab, Prec: prec, Align: Right},
	}
}

// Kind is the type of a cell.
type Kind uint8

// The cell kinds.
const (
	Missing Kind = iota // no value: printed as "—" (text) or empty (CSV, JSON null)
	TextKind
	IntKind
	FloatKind
)

// Cell is one typed value.
type Cell struct {
	Kind  Kind
	Text  string
	Int   int64
	Float float64
	Prec  int // decimals of a FloatKind cell (< 0: none)
}

// Text returns a text cell.
func Text(s string) Cell { return Cell{Kind: TextKind, Text: s} }

// Int returns an integer cell.
func Int(n int) Cell { return Cell{Kind: IntKind, Int: int64(n)} }

// Float returns a float cell printed with prec decimals (< 0: none).
func Float(v float64, prec int) Cell { return Cell{Kind: FloatKind, Float: v, Prec: prec} }

// Empty returns a missing cell: a figure the article did not give, or a
// measurement the lab could not make.
func Empty() Cell { return Cell{} }

// String formats the cell as the text and Markdown renderings print it.
func (c Cell) String() string {
	switch c.Kind {
	case TextKind:
		return c.Text
	case IntKind:
		return strconv.FormatInt(c.Int, 10)
	case FloatKind:
		if math.IsNaN(c.Float) {
			return "n/a"
		}
		if math.IsInf(c.Float, 0) {
			if c.Float > 0 {
				return "∞"
			}
			return "-∞"
		}
		p := c.Prec
		if p < 0 {
			p = 0
		}
		return strconv.FormatFloat(c.Float, 'f', p, 64)
	}
	return "—"
}

// raw is the cell at full precision for CSV.
func (c Cell) raw() string {
	switch c.Kind {
	case TextKind:
		return c.Text
	case IntKind:
		return strconv.FormatInt(c.Int, 10)
	case FloatKind:
		return strconv.FormatFloat(c.Float, 'g', -1, 64)
	}
	return ""
}

// json is the cell as a JSON value (nil for missing, NaN and ±Inf).
func (c Cell) json() any {
	switch c.Kind {
	case TextKind:
		return c.Text
	case IntKind:
		return c.Int
	case FloatKind:
		if math.IsNaN(c.Float) || math.IsInf(c.Float, 0) {
			return nil
		}
		return c.Float
	}
	return nil
}

func (c Cell) numeric() bool { return c.Kind == IntKind || c.Kind == FloatKind }

// autoPrec picks decimals for a float by magnitude.
func autoPrec(v float64) int {
	a := math.Abs(v)
	switch {
	case a < 1:
		return 3
	case a < 10:
		return 2
	case a < 100:
		return 1
	}
	return 0
}

// Table is a titled grid of typed cells with notes.
type Table struct {
	Title   string
	Columns []Column
	Rows    [][]Cell
	Notes   []string
}

// New returns an empty table with the given columns.
func New(title string, cols ...Column) *Table {
	return &Table{Title: title, Columns: append([]Column(nil), cols...)}
}

// AddColumns appends columns (e.g. a [Pair]); rows already present get
// missing cells in them.
func (t *Table) AddColumns(cols ...Column) {
	t.Columns = append(t.Columns, cols...)
	for i := range t.Rows {
		for range cols {
			t.Rows[i] = append(t.Rows[i], Empty())
		}
	}
}

// AddRow appends a row; it must have one cell per column.
func (t *Table) AddRow(cells ...Cell) error {
	if len(cells) != len(t.Columns) {
		return fmt.Errorf("table: %d cells for %d columns in table %q: %w", len(cells), len(t.Columns), t.Title, ErrShape)
	}
	t.Rows = append(t.Rows, append([]Cell(nil), cells...))
	return nil
}

// AddValues appends a row of plain Go values, one per column: string, the
// integer and float types, bool, time.Duration (as milliseconds), a Cell,
// or nil (missing). Floats take the column's Prec.
func (t *Table) AddValues(vals ...any) error {
	if len(vals) != len(t.Columns) {
		return fmt.Errorf("table: %d values for %d columns in table %q: %w", len(vals), len(t.Columns), t.Title, ErrShape)
	}
	row := make([]Cell, len(vals))
	for i, v := range vals {
		c, err := cellOf(v, t.Columns[i].Prec)
		if err != nil {
			return fmt.Errorf("table %q column %q: %w", t.Title, t.Columns[i].Label(), err)
		}
		row[i] = c
	}
	t.Rows = append(t.Rows, row)
	return nil
}

func floatCell(v float64, prec int) Cell {
	switch {
	case prec == 0:
		prec = autoPrec(v)
	case prec < 0:
		prec = 0
	}
	return Float(v, prec)
}

func cellOf(v any, prec int) (Cell, error) {
	switch x := v.(type) {
	case nil:
		return Empty(), nil
	case Cell:
		return x, nil
	case string:
		return Text(x), nil
	case bool:
		return Text(strconv.FormatBool(x)), nil
	case int:
		return Int(x), nil
	case int8:
		return Int(int(x)), nil
	case int16:
		return Int(int(x)), nil
	case int32:
		return Int(int(x)), nil
	case int64:
		return Cell{Kind: IntKind, Int: x}, nil
	case uint:
		return Cell{Kind: IntKind, Int: int64(x)}, nil
	case uint8:
		return Int(int(x)), nil
	case uint16:
		return Int(int(x)), nil
	case uint32:
		return Cell{Kind: IntKind, Int: int64(x)}, nil
	case uint64:
		if x > math.MaxInt64 {
			return Cell{}, fmt.Errorf("value %d overflows int64", x)
		}
		return Cell{Kind: IntKind, Int: int64(x)}, nil
	case float32:
		return floatCell(float64(x), prec), nil
	case float64:
		return floatCell(x, prec), nil
	case time.Duration:
		return floatCell(float64(x)/float64(time.Millisecond), prec), nil
	case fmt.Stringer:
		return Text(x.String()), nil
	}
	return Cell{}, fmt.Errorf("unsupported value type %T", v)
}

// Note appends a note printed under the table.
func (t *Table) Note(format string, args ...any) {
	t.Notes = append(t.Notes, fmt.Sprintf(format, args...))
}

// Caption is the one line that says what the table's recall figures are:
// lab/metrics' definition ([metrics.RecallCaption]) for the ks its column
// headers name ("recall@10", "IVF recall@100"), "" when no header names
// one. The renderers print it once, as the first note, so no table writes
// the definition by hand and every table with a recall column states it.
func (t *Table) Caption() string {
	var ks []int
	for _, c := range t.Columns {
		if k, ok := metrics.RecallK(c.Header); ok {
			ks = append(ks, k)
		}
	}
	return metrics.RecallCaption(ks...)
}

// notes are the lines printed under the table: the caption, then the
// notes (a note that repeats the caption is left out).
func (t *Table) notes() []string {
	c := t.Caption()
	if c == "" {
		return t.Notes
	}
	out := []string{c}
	for _, n := range t.Notes {
		if n != c {
			out = append(out, n)
		}
	}
	return out
}

// Column returns the index of the first column whose Label or Header is
// name, or -1.
func (t *Table) Column(name string) int {
	for i, c := range t.Columns {
		if c.Label() == name {
			return i
		}
	}
	for i, c := range t.Columns {
		if c.Header == name {
			return i
		}
	}
	return -1
}

// Cell returns the cell at row r, column c, or a missing cell when out of range.
func (t *Table) Cell(r, c int) Cell {
	if r < 0 || r >= len(t.Rows) || c < 0 || c >= len(t.Rows[r]) {
		return Empty()
	}
	return t.Rows[r][c]
}

// Lookup returns the cell in the row whose first cell reads key and in the
// column named col (see [Table.Column]); ok is false if either is absent.
func (t *Table) Lookup(key, col string) (Cell, bool) {
	ci := t.Column(col)
	if ci < 0 {
		return Empty(), false
	}
	for _, row := range t.Rows {
		if len(row) > 0 && row[0].String() == key {
			return row[ci], true
		}
	}
	return Empty(), false
}

// align resolves Auto for column i from its cells.
func (t *Table) align(i int) Align {
	a := t.Columns[i].Align
	if a != Auto {
		return a
	}
	for _, row := range t.Rows {
		if i < len(row) && row[i].Kind != Missing {
			if row[i].numeric() {
				return Right
			}
			return Left
		}
	}
	return Left
}

// String renders the table as aligned plain text: title, header, rule,
// rows, then the notes.
func (t *Table) String() string {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString(t.Title)
		b.WriteByte('\n')
	}
	n := len(t.Columns)
	widths := make([]int, n)
	aligns := make([]Align, n)
	for i, c := range t.Columns {
		widths[i] = width(c.Label())
		aligns[i] = t.align(i)
	}
	for _, row := range t.Rows {
		for i := 0; i < n && i < len(row); i++ {
			widths[i] = max(widths[i], width(row[i].String()))
		}
	}
	line := func(cells []string) {
		var l strings.Builder
		for i, s := range cells {
			if i > 0 {
				l.WriteString("  ")
			}
			l.WriteString(pad(s, widths[i], aligns[i]))
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	labels := make([]string, n)
	rules := make([]string, n)
	for i, c := range t.Columns {
		labels[i] = c.Label()
		rules[i] = strings.Repeat("-", widths[i])
	}
	if n > 0 {
		line(labels)
		line(rules)
	}
	for _, row := range t.Rows {
		cells := make([]string, n)
		for i := range cells {
			if i < len(row) {
				cells[i] = row[i].String()
			}
		}
		line(cells)
	}
	for _, note := range t.notes() {
		b.WriteString("  * ")
		b.WriteString(note)
		b.WriteByte('\n')
	}
	return b.String()
}

func width(s string) int { return len([]rune(s)) }

func pad(s string, w int, a Align) string {
	gap := w - width(s)
	if gap <= 0 {
		return s
	}
	switch a {
	case Right:
		return strings.Repeat(" ", gap) + s
	case Center:
		l := gap / 2
		return strings.Repeat(" ", l) + s + strings.Repeat(" ", gap-l)
	}
	return s + strings.Repeat(" ", gap)
}
