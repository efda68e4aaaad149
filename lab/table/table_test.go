package table

import (
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/lab/metrics"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// sample is the E02 table shape: an article/lab pair per measure.
func sample(t *testing.T) *Table {
	t.Helper()
	tb := New("E02 unfiltered recall@10 on defaults (100 queries, k=10)", Col("store", ""))
	tb.AddColumns(Pair("recall@10", "", 3)...)
	tb.AddColumns(Pair("p50", "ms", 1)...)
	tb.AddColumns(Column{Header: "mean hits", Source: Lab, Prec: 1})
	rows := [][]any{
		{"pgvector", 0.951, 0.9482, 9.5, 1.234, 10.0},
		{"redis", 0.616, 0.6, 0.7, 0.31, 10.0},
		{"qdrant", 0.999, 1.0, 2.8, nil, 10.0},
		{"elastic|search <b>", 0.491, math.NaN(), 5.4, 2 * time.Millisecond, 9.5},
	}
	for _, r := range rows {
		if err := tb.AddValues(r...); err != nil {
			t.Fatal(err)
		}
	}
	tb.Note("article: Spring AI article, the Spring AI VectorStore article; lab: this run")
	tb.Note("escaping: <script> & \"quotes\"")
	return tb
}

func TestGolden(t *testing.T) {
	tb := sample(t)
	js, err := json.MarshalIndent(tb, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		file string
		got  string
	}{
		{"sample.txt", tb.String()},
		{"sample.md", tb.Markdown()},
		{"sample.html", tb.HTML()},
		{"sample.csv", tb.CSV()},
		{"sample.json", string(js) + "\n"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("testdata", c.file)
			if *update {
				if err := os.WriteFile(path, []byte(c.got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if c.got != string(want) {
				t.Errorf("%s differs from golden file:\n--- got\n%s\n--- want\n%s", c.file, c.got, want)
			}
		})
	}
	// Idempotence: rendering twice gives the same bytes.
	if tb.String() != sample(t).String() || tb.HTML() != sample(t).HTML() {
		t.Error("rendering is not deterministic")
	}
}

func TestLabels(t *testing.T) {
	tests := []struct {
		col  Column
		want string
	}{
		{Col("store", ""), "store"},
		{Col("p50", "ms"), "p50 ms"},
		{Column{Header: "recall@10", Source: Article}, "recall@10 (article)"},
		{Column{Header: "p95", Unit: "ms", Source: Lab}, "p95 ms (lab)"},
		{Column{Unit: "docs/s"}, "docs/s"},
	}
	for _, tt := range tests {
		if got := tt.col.Label(); got != tt.want {
			t.Errorf("Label(%+v) = %q, want %q", tt.col, got, tt.want)
		}
	}
}

func TestCells(t *testing.T) {
	tests := []struct {
		name string
		v    any
		prec int
		want string
	}{
		{"nil", nil, 0, "—"},
		{"string", "x", 0, "x"},
		{"int", 645, 0, "645"},
		{"uint32", uint32(7), 0, "7"},
		{"auto<1", 0.9512, 0, "0.951"},
		{"auto<10", 9.54, 0, "9.54"},
		{"auto<100", 46.51, 0, "46.5"},
		{"auto big", 17382.4, 0, "17382"},
		{"prec", 0.5, 2, "0.50"},
		{"no decimals", 3158.7, -1, "3159"},
		{"nan", math.NaN(), 2, "n/a"},
		{"inf", math.Inf(1), 2, "∞"},
		{"duration", 1500 * time.Microsecond, 1, "1.5"},
		{"bool", true, 0, "true"},
		{"float32", float32(0.25), 2, "0.25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := cellOf(tt.v, tt.prec)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := cellOf(struct{}{}, 0); err == nil {
		t.Error("unsupported type accepted")
	}
	if _, err := cellOf(uint64(math.MaxUint64), 0); err == nil {
		t.Error("overflowing uint64 accepted")
	}
}

func TestShapeErrors(t *testing.T) {
	tb := New("t", Col("a", ""), Col("b", ""))
	if err := tb.AddRow(Text("x")); !errors.Is(err, ErrShape) {
		t.Errorf("AddRow short: err = %v, want ErrShape", err)
	}
	if err := tb.AddValues(1, 2, 3); !errors.Is(err, ErrShape) {
		t.Errorf("AddValues long: err = %v, want ErrShape", err)
	}
	err := tb.AddValues(1, []int{1})
	if err == nil || !strings.Contains(err.Error(), `column "b"`) {
		t.Errorf("AddValues bad type: err = %v, want one naming column b", err)
	}
	if len(tb.Rows) != 0 {
		t.Errorf("failed adds left %d rows", len(tb.Rows))
	}
	// Adding columns later pads existing rows.
	if err := tb.AddValues("x", 1); err != nil {
		t.Fatal(err)
	}
	tb.AddColumns(Col("c", ""))
	if got := tb.Cell(0, 2).Kind; got != Missing {
		t.Errorf("padded cell kind = %v, want Missing", got)
	}
	if got := tb.Cell(5, 5).Kind; got != Missing {
		t.Errorf("out-of-range cell kind = %v, want Missing", got)
	}
}

func TestLookup(t *testing.T) {
	tb := sample(t)
	c, ok := tb.Lookup("redis", "recall@10 (lab)")
	if !ok || c.Float != 0.6 {
		t.Errorf("Lookup(redis, recall lab) = %v, %v", c, ok)
	}
	c, ok = tb.Lookup("pgvector", "p50 ms (article)")
	if !ok || c.Float != 9.5 {
		t.Errorf("Lookup(pgvector, p50 article) = %v, %v", c, ok)
	}
	if _, ok := tb.Lookup("nobody", "store"); ok {
		t.Error("Lookup of a missing row succeeded")
	}
	if _, ok := tb.Lookup("redis", "nothing"); ok {
		t.Error("Lookup of a missing column succeeded")
	}
	if i := tb.Column("mean hits"); i != 5 {
		t.Errorf("Column(mean hits) = %d, want 5 (by header)", i)
	}
}

func TestHTMLEscapes(t *testing.T) {
	h := sample(t).HTML()
	if strings.Contains(h, "<script>") || strings.Contains(h, "<b>") {
		t.Error("HTML output contains unescaped markup from cell or note text")
	}
	if !strings.Contains(h, "&lt;script&gt;") {
		t.Error("escaped note missing from HTML")
	}
}

// TestCaption checks that the recall definition comes from the headers
// and lab/metrics, once per table, in every rendering.
func TestCaption(t *testing.T) {
	for _, tc := range []struct {
		name    string
		headers []string
		notes   []string
		want    string // the caption ("" for none)
		lines   int    // notes printed
	}{
		{"no recall column", []string{"store", "QPS"}, []string{"a note"}, "", 1},
		{"one k", []string{"ef", "recall@10", "QPS"}, nil, metrics.RecallCaption(10), 1},
		{"article and lab", []string{"ef", "recall@10 (article)", "recall@10"}, []string{"a note"}, metrics.RecallCaption(10), 2},
		{"two ks", []string{"nprobe", "IVF recall@100", "recall@10"}, nil, metrics.RecallCaption(100, 10), 1},
		{"a hand-written copy is dropped", []string{"recall@10"}, []string{metrics.RecallCaption(10), "b"}, metrics.RecallCaption(10), 2},
		{"recall without k", []string{"recall"}, nil, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := New("t")
			for _, h := range tc.headers {
				tb.AddColumns(Col(h, ""))
			}
			for _, n := range tc.notes {
				tb.Note("%s", n)
			}
			if got := tb.Caption(); got != tc.want {
				t.Errorf("caption %q, want %q", got, tc.want)
			}
			if n := strings.Count(tb.String(), "\n  * "); n != tc.lines {
				t.Errorf("%d note lines printed, want %d:\n%s", n, tc.lines, tb)
			}
			for name, out := range map[string]string{"text": tb.String(), "markdown": tb.Markdown(), "html": tb.HTML()} {
				if tc.want != "" && strings.Count(out, "exact top") != 1 {
					t.Errorf("%s states the definition %d times, want once:\n%s", name, strings.Count(out, "exact top"), out)
				}
			}
		})
	}
}
