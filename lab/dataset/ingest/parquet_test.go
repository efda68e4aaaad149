package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/internal/testenv"
)

// source is what a test writes with another tool and expects back.
type source struct {
	ids   []int64
	texts []string
	vecs  *vec.Matrix
}

// makeSource draws n rows of dim float32 components with seed; texts hold
// line breaks, quotes and non-ASCII, as real ones do.
func makeSource(n, dim int, seed uint64) source {
	r := rand.New(rand.NewPCG(seed, 7))
	s := source{vecs: vec.NewMatrix(n, dim)}
	for i := 0; i < n; i++ {
		s.ids = append(s.ids, int64(1000+i))
		s.texts = append(s.texts, fmt.Sprintf("sentence %d: \"é\"\nsecond line", i))
		for j := range s.vecs.Row(i) {
			s.vecs.Row(i)[j] = float32(r.NormFloat64())
		}
	}
	return s
}

func (s source) jsonl(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	for i := range s.ids {
		row := make([]float64, s.vecs.Dim)
		for j, x := range s.vecs.Row(i) {
			row[j] = float64(x) // exact: every float32 is a float64
		}
		line, err := json.Marshal(map[string]any{"id": s.ids[i], "text": s.texts[i], "vec": row})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// check compares a table read back with the source, exactly.
func (s source) check(t *testing.T, tb *Table) {
	t.Helper()
	if tb.Vectors.N != s.vecs.N || tb.Vectors.Dim != s.vecs.Dim {
		t.Fatalf("read %d×%d, wrote %d×%d", tb.Vectors.N, tb.Vectors.Dim, s.vecs.N, s.vecs.Dim)
	}
	for i := 0; i < s.vecs.N; i++ {
		for j, x := range s.vecs.Row(i) {
			if got := tb.Vectors.Row(i)[j]; math.Float32bits(got) != math.Float32bits(x) {
				t.Fatalf("row %d component %d: read %v, wrote %v", i, j, got, x)
			}
		}
		if tb.IDs[i] != fmt.Sprint(s.ids[i]) || tb.Texts[i] != s.texts[i] {
			t.Fatalf("row %d: read id %q text %q, wrote %d %q", i, tb.IDs[i], tb.Texts[i], s.ids[i], s.texts[i])
		}
	}
}

func readParquetFile(t *testing.T, path string, opt ParquetOptions) (*Table, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return ReadParquet(f, st.Size(), path, opt)
}

// TestParquetFromDuckDB writes Parquet files with DuckDB, an independent
// writer, in the column types embedding sets use, and reads them back to
// the same vectors, ids and texts, across several row groups.
func TestParquetFromDuckDB(t *testing.T) {
	testenv.Need(t, testenv.DuckDB)
	s := makeSource(5000, 24, 1)
	in := s.jsonl(t)
	for _, typ := range []string{"FLOAT[]", "DOUBLE[]", "FLOAT[24]"} {
		t.Run(typ, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.parquet")
			cmd := exec.Command(testenv.Node.Path(), filepath.Join(testenv.DuckDB.Dir(), "write-parquet.mjs"), in, out, typ, "2048")
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("duckdb: %v: %s", err, b)
			}
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			st, _ := f.Stat()
			pf, err := parquet.OpenFile(f, st.Size())
			if err != nil {
				t.Fatal(err)
			}
			if n := len(pf.RowGroups()); n < 2 {
				t.Errorf("DuckDB wrote %d row group(s); the test wants several", n)
			}
			f.Close()
			var last int64
			tb, err := readParquetFile(t, out, ParquetOptions{Column: "embedding", Progress: func(done, total int64) { last = done }})
			if err != nil {
				t.Fatal(err)
			}
			s.check(t, tb)
			if last != int64(s.vecs.N) || tb.Column != "embedding" || tb.IDColumn != "id" || tb.TextColumn != "text" {
				t.Errorf("progress ended at %d of %d; columns %q %q %q", last, s.vecs.N, tb.Column, tb.IDColumn, tb.TextColumn)
			}
		})
	}
}

// Rows of the malformed files, written with parquet-go's own writer.
type (
	rowF32 struct {
		ID  int64     `parquet:"id"`
		Vec []float32 `parquet:"embedding,list"`
	}
	rowF32Optional struct {
		Vec []float32 `parquet:"embedding,list,optional"`
	}
	rowInts struct {
		Vec []int32 `parquet:"embedding,list"`
	}
	rowTwo struct {
		A []float32 `parquet:"a,list"`
		B []float64 `parquet:"b,list"`
	}
	rowScalar struct {
		Vec []float32 `parquet:"embedding,list"`
		ID  float64   `parquet:"id"`
	}
	rowMeta struct {
		Vec    []float32 `parquet:"embedding,list"`
		Colour string    `parquet:"colour,optional"`
		Year   int32     `parquet:"year"`
	}
)

func writeRows[T any](t testing.TB, rows []T, rowGroup int) []byte {
	t.Helper()
	var b bytes.Buffer
	w := parquet.NewGenericWriter[T](&b, parquet.MaxRowsPerRowGroup(int64(rowGroup)))
	for i := 0; i < len(rows); i += rowGroup {
		if _, err := w.Write(rows[i:min(i+rowGroup, len(rows))]); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func rows32(vs ...[]float32) []rowF32 {
	out := make([]rowF32, len(vs))
	for i, v := range vs {
		out[i] = rowF32{ID: int64(i), Vec: v}
	}
	return out
}

func TestParquetErrors(t *testing.T) {
	good := writeRows(t, rows32([]float32{1, 2}, []float32{3, 4}, []float32{5, 6}), 2)
	for _, tc := range []struct {
		name string
		file []byte
		opt  ParquetOptions
		is   error
		want string // a fragment of the message
	}{
		{"ragged in the second row group", writeRows(t, rows32([]float32{1, 2}, []float32{3, 4}, []float32{5, 6, 7}), 2), ParquetOptions{},
			engine.ErrDimension, `column "embedding", row group 1, row 2: more than 2 components`},
		{"ragged shorter", writeRows(t, rows32([]float32{1, 2}, []float32{3}, []float32{5, 6}), 3), ParquetOptions{},
			engine.ErrDimension, `row group 0, row 1: 1 components, row 0 has 2`},
		{"NaN", writeRows(t, rows32([]float32{1, 2}, []float32{3, float32(math.NaN())}), 2), ParquetOptions{},
			engine.ErrCorrupt, `row group 0, row 1: component 1 is NaN`},
		{"Inf", writeRows(t, rows32([]float32{float32(math.Inf(-1)), 2}), 2), ParquetOptions{},
			engine.ErrCorrupt, `row 0: component 0 is -Inf`},
		{"empty list", writeRows(t, rows32([]float32{1, 2}, []float32{}), 2), ParquetOptions{},
			engine.ErrCorrupt, `row group 0, row 1: a null or empty vector`},
		{"null list", writeRows(t, []rowF32Optional{{[]float32{1}}, {nil}}, 2), ParquetOptions{},
			engine.ErrCorrupt, `row 1: a null or empty vector`},
		{"no rows", writeRows(t, []rowF32{}, 2), ParquetOptions{},
			engine.ErrEmpty, `column "embedding" has no rows`},
		{"integers", writeRows(t, []rowInts{{[]int32{1, 2}}}, 2), ParquetOptions{},
			engine.ErrNotFound, `no list column of FLOAT or DOUBLE`},
		{"integers by name", writeRows(t, []rowInts{{[]int32{1, 2}}}, 2), ParquetOptions{Column: "embedding"},
			engine.ErrInvalidArgument, `column "embedding" is`},
		{"two vector columns", writeRows(t, []rowTwo{{[]float32{1}, []float64{2}}}, 2), ParquetOptions{},
			engine.ErrInvalidArgument, `2 vector columns ("a", "b"): choose one with -column`},
		{"no such column", good, ParquetOptions{Column: "vec"},
			engine.ErrNotFound, `no column "vec" (columns: id`},
		{"id column of floats", writeRows(t, []rowScalar{{[]float32{1}, 2}}, 2), ParquetOptions{},
			engine.ErrInvalidArgument, `column "id" is`},
		{"no text column by name", good, ParquetOptions{TextColumn: "body"},
			engine.ErrNotFound, `no column "body"`},
		{"truncated", good[:len(good)-5], ParquetOptions{},
			engine.ErrCorrupt, `not a readable Parquet file`},
		{"not Parquet", []byte("id,vec\n1,2\n"), ParquetOptions{},
			engine.ErrCorrupt, `not a readable Parquet file`},
		{"empty file", nil, ParquetOptions{},
			engine.ErrCorrupt, `not a readable Parquet file`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadParquet(bytes.NewReader(tc.file), int64(len(tc.file)), "x.parquet", tc.opt)
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "x.parquet") {
				t.Errorf("got %v\nwant %v containing %q and the file name", err, tc.is, tc.want)
			}
		})
	}
	t.Run("metadata columns", func(t *testing.T) {
		b := writeRows(t, []rowMeta{{[]float32{1}, "red", 2020}, {[]float32{2}, "", 2021}, {[]float32{3}, "blue", 2022}}, 2)
		tb, err := ReadParquet(bytes.NewReader(b), int64(len(b)), "x.parquet", ParquetOptions{Columns: []string{"colour", "year"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(tb.Columns); got != "map[colour:[red  blue] year:[2020 2021 2022]]" {
			t.Errorf("columns %s", got)
		}
		_, err = ReadParquet(bytes.NewReader(b), int64(len(b)), "x.parquet", ParquetOptions{Columns: []string{"size"}})
		if !errors.Is(err, engine.ErrNotFound) || !strings.Contains(err.Error(), `x.parquet: no column "size" (columns: embedding group, colour`) {
			t.Errorf("a missing column: %v", err)
		}
	})
	t.Run("good", func(t *testing.T) {
		tb, err := ReadParquet(bytes.NewReader(good), int64(len(good)), "x.parquet", ParquetOptions{TextColumn: "-"})
		if err != nil {
			t.Fatal(err)
		}
		if want := []float32{1, 2, 3, 4, 5, 6}; fmt.Sprint(tb.Vectors.Data) != fmt.Sprint(want) || strings.Join(tb.IDs, ",") != "0,1,2" || tb.Texts != nil {
			t.Errorf("read %v ids %v texts %v", tb.Vectors.Data, tb.IDs, tb.Texts)
		}
	})
}

// FuzzReadParquet feeds the reader mutations of small valid files: it
// returns vectors or an error, never panics, and every row it returns has
// the same length and finite components.
func FuzzReadParquet(f *testing.F) {
	f.Add(writeRows(f, rows32([]float32{1, 2}, []float32{3, 4}, []float32{5, 6}), 2))
	f.Add(writeRows(f, []rowTwo{{[]float32{1}, []float64{2}}}, 2))
	f.Add(writeRows(f, []rowF32Optional{{[]float32{1}}, {nil}}, 1))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, col := range []string{"", "embedding", "b"} {
			tb, err := ReadParquet(bytes.NewReader(b), int64(len(b)), "fuzz.parquet", ParquetOptions{Column: col})
			if err != nil {
				continue
			}
			m := tb.Vectors
			if m.N < 1 || m.Dim < 1 || len(m.Data) != m.N*m.Dim {
				t.Fatalf("%d×%d with %d components", m.N, m.Dim, len(m.Data))
			}
			for _, x := range m.Data {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					t.Fatalf("returned %v", x)
				}
			}
		}
	})
}
