package ingest

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
)

// Table is what a reader returns: the vectors, and per row the id and text
// when the file has such columns (nil otherwise).
type Table struct {
	Vectors *vec.Matrix
	IDs     []string
	Texts   []string
	// Column, IDColumn and TextColumn name the columns read ("" when none).
	Column, IDColumn, TextColumn string
	// Columns holds the values of ParquetOptions.Columns, one a row, as
	// strings ("" for a null).
	Columns map[string][]string
}

// ParquetOptions choose the columns of a Parquet file.
type ParquetOptions struct {
	// Column is the vector column; "" picks the only list column of FLOAT
	// or DOUBLE, and is an error when there are several.
	Column string
	// IDColumn and TextColumn are kept beside the vectors. "" picks a
	// top-level column named "id" (ID) or "text" (TEXT) when there is one;
	// "-" reads none.
	IDColumn, TextColumn string
	// Columns are more top-level string or integer columns kept beside
	// the vectors (metadata a filter selects on); a name that is not in
	// the file is an error wrapping engine.ErrNotFound.
	Columns []string
	// Progress, when not nil, is called after every page with the rows read
	// and the file's rows.
	Progress func(done, total int64)
}

// maxParquetRows bounds the rows a file may declare before any is read.
const maxParquetRows = 1 << 31

// ReadParquet reads the vector column of a Parquet file, with its id and
// text columns, streaming one row group and page at a time. name is the
// file's name in errors.
func ReadParquet(r io.ReaderAt, size int64, name string, opt ParquetOptions) (t *Table, err error) {
	defer func() {
		// parquet-go checks the file's structure, but a malformed page can
		// still reach an index out of range inside it: no panic leaves this
		// function.
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("ingest: %s: malformed Parquet file (%v): %w", name, p, engine.ErrCorrupt)
		}
	}()
	f, err := parquet.OpenFile(r, size)
	if err != nil {
		return nil, fmt.Errorf("ingest: %s: not a readable Parquet file: %v: %w", name, err, engine.ErrCorrupt)
	}
	if n := f.NumRows(); n < 0 || n > maxParquetRows {
		return nil, fmt.Errorf("ingest: %s: footer states %d rows: %w", name, n, engine.ErrCorrupt)
	}
	vcol, err := vectorColumn(f.Root(), name, opt.Column)
	if err != nil {
		return nil, err
	}
	t = &Table{Column: vcol.top}
	idCol, err := scalarColumn(f.Root(), name, opt.IDColumn, "id", "ID")
	if err != nil {
		return nil, err
	}
	textCol, err := scalarColumn(f.Root(), name, opt.TextColumn, "text", "TEXT")
	if err != nil {
		return nil, err
	}
	type kept struct {
		col  *scalar
		out  *[]string
		name string // a Columns entry's name, "" for the id and text columns
	}
	keep := []kept{{idCol, &t.IDs, ""}, {textCol, &t.Texts, ""}}
	if len(opt.Columns) > 0 {
		t.Columns = make(map[string][]string, len(opt.Columns))
		for _, n := range opt.Columns {
			if n == "" || n == "-" {
				return nil, fmt.Errorf("ingest: %s: column %q: want a column name: %w", name, n, engine.ErrInvalidArgument)
			}
			c, err := scalarColumn(f.Root(), name, n)
			if err != nil {
				return nil, err
			}
			keep = append(keep, kept{c, new([]string), n})
		}
	}
	pr := &parquetRead{name: name, total: f.NumRows(), progress: opt.Progress}
	var data []float32
	dim := 0                    // components a row, set by the first row
	row := int64(0)             // rows of the file before the current row group
	cur, curRow := 0, int64(-1) // components of the row being read, and its number in the file
	finish := func(g int) error {
		if curRow < 0 {
			return nil
		}
		if dim == 0 {
			dim = cur
		}
		if cur != dim {
			return fmt.Errorf("ingest: %s: column %q, row group %d, row %d: %d components, row 0 has %d (ragged vectors): %w", name, vcol.top, g, curRow, cur, dim, engine.ErrDimension)
		}
		return nil
	}
	for g, rg := range f.RowGroups() {
		chunks := rg.ColumnChunks()
		rows := int64(0)
		err := pr.values(chunks[vcol.leaf.Index()], vcol.top, g, row, func(v parquet.Value, r int64) error {
			if v.RepetitionLevel() == 0 {
				if err := finish(g); err != nil {
					return err
				}
				rows++
				cur, curRow = 0, row+r
			}
			if v.DefinitionLevel() < vcol.leaf.MaxDefinitionLevel() {
				if v.RepetitionLevel() == 0 {
					return fmt.Errorf("ingest: %s: column %q, row group %d, row %d: a null or empty vector: %w", name, vcol.top, g, curRow, engine.ErrCorrupt)
				}
				return fmt.Errorf("ingest: %s: column %q, row group %d, row %d: component %d is null: %w", name, vcol.top, g, curRow, cur, engine.ErrCorrupt)
			}
			var x float64
			switch v.Kind() {
			case parquet.Float:
				x = float64(v.Float())
			case parquet.Double:
				x = v.Double()
			default:
				return fmt.Errorf("ingest: %s: column %q, row group %d, row %d: a %v value: %w", name, vcol.top, g, curRow, v.Kind(), engine.ErrCorrupt)
			}
			if math.IsNaN(x) || math.IsInf(x, 0) || math.IsInf(float64(float32(x)), 0) {
				return fmt.Errorf("ingest: %s: column %q, row group %d, row %d: component %d is %v: %w", name, vcol.top, g, curRow, cur, x, engine.ErrCorrupt)
			}
			if dim > 0 && cur >= dim {
				return fmt.Errorf("ingest: %s: column %q, row group %d, row %d: more than %d components, row 0 has %d (ragged vectors): %w", name, vcol.top, g, curRow, dim, dim, engine.ErrDimension)
			}
			if dim == 0 && cur >= dataset.MaxTexmexDim {
				return fmt.Errorf("ingest: %s: column %q, row group %d, row %d: more than %d components: %w", name, vcol.top, g, curRow, dataset.MaxTexmexDim, engine.ErrCorrupt)
			}
			data = append(data, float32(x))
			cur++
			return nil
		}, true)
		if err != nil {
			return nil, err
		}
		if err := finish(g); err != nil {
			return nil, err
		}
		if rows != rg.NumRows() {
			return nil, fmt.Errorf("ingest: %s: column %q, row group %d: %d rows, the row group states %d: %w", name, vcol.top, g, rows, rg.NumRows(), engine.ErrCorrupt)
		}
		for _, c := range keep {
			if c.col == nil {
				continue
			}
			n := int64(0)
			err := pr.values(chunks[c.col.leaf.Index()], c.col.top, g, row, func(v parquet.Value, r int64) error {
				n++
				if v.IsNull() {
					*c.out = append(*c.out, "")
					return nil
				}
				*c.out = append(*c.out, valueString(v))
				return nil
			}, false)
			if err != nil {
				return nil, err
			}
			if n != rows {
				return nil, fmt.Errorf("ingest: %s: column %q, row group %d: %d values for %d rows: %w", name, c.col.top, g, n, rows, engine.ErrCorrupt)
			}
		}
		row += rows
	}
	if row == 0 {
		return nil, fmt.Errorf("ingest: %s: column %q has no rows: %w", name, vcol.top, engine.ErrEmpty)
	}
	if dim < 1 {
		return nil, fmt.Errorf("ingest: %s: column %q: %d dimensions (want 1…%d): %w", name, vcol.top, dim, dataset.MaxTexmexDim, engine.ErrCorrupt)
	}
	t.Vectors = &vec.Matrix{N: int(row), Dim: dim, Stride: dim, Data: data}
	for _, c := range keep {
		if c.name != "" {
			t.Columns[c.name] = *c.out
		}
	}
	if idCol != nil {
		t.IDColumn = idCol.top
	}
	if textCol != nil {
		t.TextColumn = textCol.top
	}
	return t, nil
}

// parquetRead holds what every column's pass shares.
type parquetRead struct {
	name     string
	total    int64
	done     int64
	progress func(done, total int64)
	buf      []parquet.Value
}

// values calls fn for every value of a column chunk, with the row (within
// the row group) it belongs to; counts says whether this pass moves the
// progress (the vector column's does).
func (pr *parquetRead) values(cc parquet.ColumnChunk, col string, g int, first int64, fn func(v parquet.Value, r int64) error, counts bool) error {
	pages := cc.Pages()
	defer pages.Close()
	if pr.buf == nil {
		pr.buf = make([]parquet.Value, 4096)
	}
	r := int64(-1)
	for p := 0; ; p++ {
		page, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("ingest: %s: column %q, row group %d, page %d (after row %d): %v: %w", pr.name, col, g, p, first+max(r, 0), err, engine.ErrCorrupt)
		}
		vr := page.Values()
		for {
			n, err := vr.ReadValues(pr.buf)
			for _, v := range pr.buf[:n] {
				if v.RepetitionLevel() == 0 {
					r++
				}
				if r < 0 {
					parquet.Release(page)
					return fmt.Errorf("ingest: %s: column %q, row group %d, page %d: the first value continues a row: %w", pr.name, col, g, p, engine.ErrCorrupt)
				}
				if err := fn(v, r); err != nil {
					parquet.Release(page)
					return err
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				parquet.Release(page)
				return fmt.Errorf("ingest: %s: column %q, row group %d, page %d (after row %d): %v: %w", pr.name, col, g, p, first+max(r, 0), err, engine.ErrCorrupt)
			}
		}
		parquet.Release(page)
		if pr.progress != nil && counts {
			pr.progress(pr.done+r+1, pr.total)
		}
	}
	if counts {
		pr.done += r + 1
	}
	return nil
}

// vcolumn is the vector column: its top-level name and its leaf.
type vcolumn struct {
	top  string
	leaf *parquet.Column
}

// vectorColumn finds the vector column: a top-level column whose only leaf
// is a repeated (list) FLOAT or DOUBLE, one level deep.
func vectorColumn(root *parquet.Column, name, want string) (vcolumn, error) {
	var cands []vcolumn
	var all []string
	for _, c := range root.Columns() {
		all = append(all, c.Name()+" "+describe(c))
		leaf, ok := listLeaf(c)
		if want != "" && c.Name() == want {
			if !ok {
				return vcolumn{}, fmt.Errorf("ingest: %s: column %q is %s, not a list of FLOAT or DOUBLE: %w", name, want, describe(c), engine.ErrInvalidArgument)
			}
			return vcolumn{top: c.Name(), leaf: leaf}, nil
		}
		if ok {
			cands = append(cands, vcolumn{top: c.Name(), leaf: leaf})
		}
	}
	if want != "" {
		return vcolumn{}, fmt.Errorf("ingest: %s: no column %q (columns: %s): %w", name, want, strings.Join(all, ", "), engine.ErrNotFound)
	}
	switch len(cands) {
	case 0:
		return vcolumn{}, fmt.Errorf("ingest: %s: no list column of FLOAT or DOUBLE (columns: %s): %w", name, strings.Join(all, ", "), engine.ErrNotFound)
	case 1:
		return cands[0], nil
	}
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = strconv.Quote(c.top)
	}
	return vcolumn{}, fmt.Errorf("ingest: %s: %d vector columns (%s): choose one with -column: %w", name, len(cands), strings.Join(names, ", "), engine.ErrInvalidArgument)
}

// listLeaf returns the FLOAT or DOUBLE leaf of a list column: the leaf
// repeated once under c (LIST's three levels, c.list.element, or the
// legacy repeated field itself).
func listLeaf(c *parquet.Column) (*parquet.Column, bool) {
	leaf := c
	for !leaf.Leaf() {
		kids := leaf.Columns()
		if len(kids) != 1 {
			return nil, false
		}
		leaf = kids[0]
	}
	if leaf.MaxRepetitionLevel() != 1 {
		return nil, false
	}
	switch leaf.Type().Kind() {
	case parquet.Float, parquet.Double:
		return leaf, true
	}
	return nil, false
}

// scalar is an id or text column.
type scalar struct {
	top  string
	leaf *parquet.Column
}

// scalarColumn finds a top-level, non-repeated leaf column: want by name,
// or the first of the default names present when want is "", or none when
// want is "-".
func scalarColumn(root *parquet.Column, name, want string, defaults ...string) (*scalar, error) {
	if want == "-" {
		return nil, nil
	}
	names := defaults
	if want != "" {
		names = []string{want}
	}
	for _, n := range names {
		c := root.Column(n)
		if c == nil {
			continue
		}
		if !c.Leaf() || c.MaxRepetitionLevel() != 0 {
			return nil, fmt.Errorf("ingest: %s: column %q is %s, not one value a row: %w", name, n, describe(c), engine.ErrInvalidArgument)
		}
		switch c.Type().Kind() {
		case parquet.ByteArray, parquet.FixedLenByteArray, parquet.Int32, parquet.Int64:
		default:
			return nil, fmt.Errorf("ingest: %s: column %q is %s, not a string or integer: %w", name, n, describe(c), engine.ErrInvalidArgument)
		}
		return &scalar{top: n, leaf: c}, nil
	}
	if want != "" {
		var all []string
		for _, c := range root.Columns() {
			all = append(all, c.Name()+" "+describe(c))
		}
		return nil, fmt.Errorf("ingest: %s: no column %q (columns: %s): %w", name, want, strings.Join(all, ", "), engine.ErrNotFound)
	}
	return nil, nil
}

func describe(c *parquet.Column) string {
	if c.Leaf() {
		s := c.Type().String()
		if c.MaxRepetitionLevel() > 0 {
			s = "repeated " + s
		}
		return s
	}
	return "group"
}

// valueString is an id or text value as a string.
func valueString(v parquet.Value) string {
	switch v.Kind() {
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	default:
		return string(v.ByteArray())
	}
}
