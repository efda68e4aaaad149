package e19

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset/bulk"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// e19 is base64 vectors in bulk ingest (Elastic's reply to Qdrant).
var e19 = experiment.Experiment{
	ID:     "E19",
	Claims: claims,
	Title:  "base64 vectors in bulk ingest: parse throughput of float-array JSON vs base64 vs msgpack, and end-to-end ingest into IVF (DiskBBQ-like) and HNSW",
	Article: "Elastic's reply, base64-encoded dense_vector in Elasticsearch 9.x: parsing 1,000 JSON documents more than 10× faster with base64 than with float arrays; " +
		"indexing throughput ≈ +100 % with DiskBBQ, ≈ +20 % with HNSW",
	Figures: []experiment.Figure{
		{Row: "base64", Measure: "parse speed-up", Value: 10, Unit: "× (more than)"},
		{Row: "base64", Measure: "HNSW ingest gain", Value: 20, Unit: "%"},
		{Row: "base64", Measure: "DiskBBQ ingest gain", Value: 100, Unit: "%"},
	},
}

func init() { e19.Run, e19.Notebook = runE19, "10-ingest-and-fetch.ipynb"; experiment.Register(e19) }

// e19BatchDocs is the documents of one bulk request: the article's 1,000.
const e19BatchDocs = 1000

// Parse is the parse measurement of one format with one parser.
type Parse struct {
	Format      bulk.Format
	Parser      bulk.Parser
	Docs        int     // documents parsed per pass
	BodyBytes   int64   // bytes of all bodies
	Passes      int     // timed passes
	DocsPerSec  float64 // documents parsed per second
	MBPerSec    float64 // body megabytes (10⁶ B) parsed per second
	BytesPerDoc float64
	// CheckShare is, for encoding/json, the share of its parse time that
	// its first pass takes: json.Valid timed alone over the same bodies
	// (the scanner's state machine over every byte, which Unmarshal runs
	// before decoding). Zero for the other parsers.
	CheckShare float64
}

// e19Rounds is how many alternating rounds each format's parse is timed in.
const e19Rounds = 5

// e19IngestRounds is how many times each format's ingest is built, the
// formats alternating; the median build is reported.
const e19IngestRounds = 3

// e19MeasureParse encodes the first n documents of the data set in bulk
// bodies of batch documents per format, decodes them back with parser
// (checking every vector bit for bit) and times the decoding: whole
// passes in e19Rounds alternating rounds per format of budget/e19Rounds
// each (at least one pass), on a locked thread's CPU clock, the rate being
// the median of a format's rounds; for
// encoding/json it also times json.Valid alone over the JSON bodies
// (CheckShare).
func e19MeasureParse(env *experiment.Env, formats []bulk.Format, parser bulk.Parser, n, batch int, budget time.Duration) ([]Parse, error) {
	if len(formats) == 0 || budget < 0 || parser > bulk.Tokens {
		return nil, fmt.Errorf("experiment: E19: need formats, a known parser and a non-negative time budget: %w", experiment.ErrBadArgument)
	}
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	if n < 1 || n > ds.Base.N || batch < 1 {
		return nil, fmt.Errorf("experiment: E19: %d documents of %d in batches of %d: %w", n, ds.Base.N, batch, experiment.ErrBadArgument)
	}
	// Each format's bodies are built and checked first; then the formats
	// are timed in alternating rounds on one locked thread's CPU clock, and
	// each format's rate is the median of its rounds, so a busy machine
	// (other processes taking the cores between rounds) moves both formats
	// alike instead of whichever happened to run during the busy spell.
	type prepared struct {
		f      bulk.Format
		bodies [][]byte
		size   int64
		d      *bulk.Decoder
		rates  []float64
		passes int
		cpu    time.Duration
	}
	ps := make([]*prepared, len(formats))
	ids := make([]uint64, 0, batch)
	dst := make([]float32, 0, batch*ds.Base.Dim)
	for fi, f := range formats {
		env.Step(fi, 2*len(formats), "E19 parse, "+parser.String())
		bodies, err := bulk.Bodies(f, ds.Base, n, batch)
		if err != nil {
			return nil, err
		}
		var size int64
		for _, b := range bodies {
			size += int64(len(b))
		}
		d := &bulk.Decoder{Format: f, Dim: ds.Base.Dim, Parser: parser}
		// Untimed checking pass: every vector bit for bit.
		for bi, b := range bodies {
			ids, dst = ids[:0], dst[:0]
			if err := d.Decode(b, &ids, &dst); err != nil {
				return nil, err
			}
			if want := min(batch, n-bi*batch); len(ids) != want {
				return nil, fmt.Errorf("experiment: E19 %s: body %d decoded %d documents, want %d: %w", f, bi, len(ids), want, engine.ErrCorrupt)
			}
			if err := bulk.Check(f, ds.Base, bi*batch, ids, dst); err != nil {
				return nil, err
			}
		}
		ps[fi] = &prepared{f: f, bodies: bodies, size: size, d: d}
	}
	// One P, so the collector's background work runs on the timed thread
	// too and is charged to the format that caused it.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	round := budget / e19Rounds
	for r := 0; r < e19Rounds; r++ {
		env.Step(len(formats)+r*len(formats)/e19Rounds, 2*len(formats), "E19 parse, "+parser.String())
		for i := range ps {
			p := ps[i]
			if r%2 == 1 { // alternate the order too
				p = ps[len(ps)-1-i]
			}
			runtime.GC()
			passes := 0
			t0, c0 := time.Now(), metrics.ThreadCPU()
			for passes == 0 || time.Since(t0) < round {
				for _, b := range p.bodies {
					ids, dst = ids[:0], dst[:0]
					if err := p.d.Decode(b, &ids, &dst); err != nil {
						return nil, err
					}
				}
				passes++
			}
			cpu := metrics.ThreadCPU() - c0
			if cpu <= 0 { // no thread clock here: the wall clock
				cpu = time.Since(t0)
			}
			p.passes += passes
			p.cpu += cpu
			p.rates = append(p.rates, float64(n*passes)/cpu.Seconds())
		}
	}
	var out []Parse
	for _, p := range ps {
		rate := experiment.Rounds{Ratios: p.rates}.Median()
		e := Parse{Format: p.f, Parser: parser, Docs: n, BodyBytes: p.size, Passes: p.passes,
			DocsPerSec: rate, MBPerSec: rate * float64(p.size) / float64(n) / 1e6,
			BytesPerDoc: float64(p.size) / float64(n)}
		if parser == bulk.Reflect && p.f != bulk.Msgpack {
			// The same passes of json.Valid alone: Unmarshal's first
			// step over each line.
			t0, c0 := time.Now(), metrics.ThreadCPU()
			for range p.passes {
				for _, b := range p.bodies {
					for line := range bytes.Lines(b) {
						if !json.Valid(line) {
							return nil, fmt.Errorf("experiment: E19 %s: a line json.Valid refuses: %w", p.f, engine.ErrCorrupt)
						}
					}
				}
			}
			cpu := metrics.ThreadCPU() - c0
			if cpu <= 0 {
				cpu = time.Since(t0)
			}
			e.CheckShare = cpu.Seconds() / p.cpu.Seconds()
		}
		out = append(out, e)
	}
	env.Step(len(formats), len(formats), "E19 parse, "+parser.String())
	return out, nil
}

// IndexKind is the index an E19 ingest fills.
type IndexKind uint8

// The index kinds.
const (
	HNSW IndexKind = iota // engine/hnsw with the Elasticsearch profile's graph settings, one AddBatch per bulk body
	IVF                   // engine/ivf with 2-bit OSQ codes around each list's centroid (DiskBBQ-like), built once over the parsed vectors
)

// String names the kind.
func (k IndexKind) String() string {
	switch k {
	case HNSW:
		return "HNSW"
	case IVF:
		return "IVF 2-bit (DiskBBQ-like)"
	}
	return fmt.Sprintf("IndexKind(%d)", k)
}

// Ingest is the end-to-end ingest measurement of one format into one
// index kind.
type Ingest struct {
	Format     bulk.Format
	Kind       IndexKind
	Docs       int
	Parse      time.Duration    // of which parsing
	Total      time.Duration    // parse + index
	DocsPerSec float64          // Docs / Total
	Clock      experiment.Clock // what Parse and Total are: the process's CPU time where it can be read
}

// e19MeasureIngest encodes the first n documents per format in bulk bodies
// of batch documents (untimed), then times parsing them and indexing the
// vectors into a fresh index of kind: for HNSW each body is parsed and
// added (AddBatch) in turn, the graph built by env.Workers goroutines with
// the Elasticsearch profile's m, M0, ef_construction and layer-0 degree;
// for IVF every body is parsed into one slab and the index is built
// (k-means, assignment, 2-bit OSQ codes) over it, as DiskBBQ clusters a
// segment when it is flushed.
func e19MeasureIngest(env *experiment.Env, kind IndexKind, formats []bulk.Format, n, batch int) ([]Ingest, error) {
	if len(formats) == 0 || kind > IVF {
		return nil, fmt.Errorf("experiment: E19: need formats and a known index kind (got %d): %w", kind, experiment.ErrBadArgument)
	}
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	if n < 1 || n > ds.Base.N || batch < 1 {
		return nil, fmt.Errorf("experiment: E19: %d documents of %d in batches of %d: %w", n, ds.Base.N, batch, experiment.ErrBadArgument)
	}
	dim := ds.Base.Dim
	p := env.Fill(profile.Default(profile.Elasticsearch))
	// The process's CPU time, not wall time: another job on a shared
	// machine stretches a wall-time span by tens of per cent; it does not
	// take CPU time from this process. Each format is still built
	// e19IngestRounds times, the formats alternating, and the median
	// build is reported: one build's CPU time moves by a tenth or more with
	// what shares the caches, enough to move a gain across its tolerance.
	clock := experiment.CPUTime.Usable()
	bodies := make([][][]byte, len(formats))
	for fi, f := range formats {
		if bodies[fi], err = bulk.Bodies(f, ds.Base, n, batch); err != nil {
			return nil, err
		}
	}
	one := func(f bulk.Format, bodies [][]byte) (parse, total time.Duration, err error) {
		d := &bulk.Decoder{Format: f, Dim: dim, Parser: bulk.Tokens}
		var ix *hnsw.Index
		if kind == HNSW {
			ix, err = hnsw.New(hnsw.Config{Dim: dim, Metric: env.Metric(), M: p.M, M0: p.M0, EfConstruction: p.EfConstruction,
				NewNodeDegreeL0: p.Degree0, KeepPruned: p.KeepPruned, Seed: env.Seed, Workers: p.Workers})
			if err != nil {
				return 0, 0, err
			}
		}
		runtime.GC()
		ids := make([]uint64, 0, n)
		slab := make([]float32, 0, n*dim)
		t0 := clock.Read()
		for _, b := range bodies {
			if kind == HNSW {
				ids, slab = ids[:0], slab[:0]
			}
			tp := clock.Read()
			if err := d.Decode(b, &ids, &slab); err != nil {
				return 0, 0, err
			}
			parse += clock.Read() - tp
			if kind == HNSW {
				m := &vec.Matrix{N: len(ids), Dim: dim, Stride: dim, Data: slab}
				if err := ix.AddBatch(ids, m); err != nil {
					return 0, 0, err
				}
			}
		}
		if kind == IVF {
			if len(ids) != n {
				return 0, 0, fmt.Errorf("experiment: E19 %s: decoded %d documents, want %d: %w", f, len(ids), n, engine.ErrCorrupt)
			}
			m := &vec.Matrix{N: n, Dim: dim, Stride: dim, Data: slab}
			if _, err := ivf.Build(m, ivf.Config{Metric: env.Metric(), Bits: 2, Seed: env.Seed, Workers: p.Workers}); err != nil {
				return 0, 0, err
			}
		} else if ix.Len() != n {
			return 0, 0, fmt.Errorf("experiment: E19 %s: index holds %d documents, want %d: %w", f, ix.Len(), n, engine.ErrCorrupt)
		}
		return parse, clock.Read() - t0, nil
	}
	type build struct{ parse, total time.Duration }
	builds := make([][]build, len(formats))
	for r := 0; r < e19IngestRounds; r++ {
		for i := range formats {
			fi := i
			if r%2 == 1 { // alternate the order too
				fi = len(formats) - 1 - i
			}
			env.Step(r*len(formats)+i, e19IngestRounds*len(formats), "E19 ingest "+kind.String())
			parse, total, err := one(formats[fi], bodies[fi])
			if err != nil {
				return nil, err
			}
			builds[fi] = append(builds[fi], build{parse, total})
		}
	}
	var out []Ingest
	for fi, f := range formats {
		bs := builds[fi]
		slices.SortFunc(bs, func(a, b build) int { return cmp.Compare(a.total, b.total) })
		m := bs[len(bs)/2]
		out = append(out, Ingest{Format: f, Kind: kind, Docs: n, Parse: m.parse, Total: m.total, DocsPerSec: float64(n) / m.total.Seconds(), Clock: clock})
	}
	env.Step(e19IngestRounds*len(formats), e19IngestRounds*len(formats), "E19 ingest "+kind.String())
	return out, nil
}

// Sizes are the document counts of one E19 run.
type Sizes struct {
	Parse, HNSW, IVF int           // documents parsed, ingested into HNSW, into IVF
	Budget           time.Duration // parse timing per format
}

// SizesFor returns the sizes E19 runs with at a scale: every document
// for parsing and IVF, at most 15,000 for HNSW (three graph builds of the
// full 30,000 would take a minute or more on a small machine).
func SizesFor(s experiment.Scale) Sizes {
	return Sizes{Parse: s.N, HNSW: min(s.N, 15000), IVF: s.N, Budget: 300 * time.Millisecond}
}

// Result is one E19 measurement: the parse and ingest figures per
// format, and their table. Parse and the ingests read JSON with the token
// parser (bulk.Tokens), as Elasticsearch reads a bulk source; bulk.Reflect is
// the same parse with encoding/json, one entry per format of Parse
// (msgpack's left zero: no JSON to parse).
type Result struct {
	Parse     []Parse
	Reflect   []Parse
	HNSW, IVF []Ingest
	Table     *table.Table
}

// Measure measures parse and ingest throughput per format and builds the
// table, format × (bytes/doc, parse, speed-up, HNSW and IVF ingest with
// their gains over float arrays), the article's figures in their own
// columns, and encoding/json's parse beside the token parser's. The first
// format is the baseline of the gains.
func Measure(env *experiment.Env, formats []bulk.Format, sz Sizes) (*Result, error) {
	if len(formats) == 0 {
		return nil, fmt.Errorf("experiment: E19: no formats: %w", experiment.ErrBadArgument)
	}
	parse, err := e19MeasureParse(env, formats, bulk.Tokens, sz.Parse, e19BatchDocs, sz.Budget)
	if err != nil {
		return nil, err
	}
	byReflect := make([]Parse, len(formats))
	for i, f := range formats {
		if f == bulk.Msgpack {
			continue
		}
		r, err := e19MeasureParse(env, []bulk.Format{f}, bulk.Reflect, sz.Parse, e19BatchDocs, sz.Budget)
		if err != nil {
			return nil, err
		}
		byReflect[i] = r[0]
	}
	hn, err := e19MeasureIngest(env, HNSW, formats, sz.HNSW, e19BatchDocs)
	if err != nil {
		return nil, err
	}
	iv, err := e19MeasureIngest(env, IVF, formats, sz.IVF, e19BatchDocs)
	if err != nil {
		return nil, err
	}
	t := table.New(fmt.Sprintf("E19 bulk bodies of %d documents (%d dims): parse %d docs, HNSW ingest %d docs, IVF ingest %d docs; gains vs %s",
		e19BatchDocs, env.Scale.Dim, sz.Parse, sz.HNSW, sz.IVF, formats[0]),
		table.Col("format", ""),
		table.Column{Header: "body", Unit: "B/doc", Source: table.Lab, Prec: -1},
		table.Column{Header: "parse", Unit: "docs/s", Source: table.Lab, Prec: -1},
		table.Column{Header: "parse", Unit: "MB/s", Source: table.Lab, Prec: 1})
	t.AddColumns(table.Pair("parse speed-up", "×", 1)...)
	t.AddColumns(table.Column{Header: "encoding/json parse", Unit: "docs/s", Source: table.Lab, Prec: -1},
		table.Column{Header: "encoding/json speed-up", Unit: "×", Source: table.Lab, Prec: 1},
		table.Column{Header: "encoding/json json.Valid share", Unit: "%", Source: table.Lab, Prec: 0})
	t.AddColumns(table.Column{Header: "HNSW ingest", Unit: "docs/s", Source: table.Lab, Prec: -1})
	t.AddColumns(table.Pair("HNSW gain", "%", -1)...)
	t.AddColumns(table.Column{Header: "IVF ingest", Unit: "docs/s", Source: table.Lab, Prec: -1})
	t.AddColumns(table.Pair("DiskBBQ/IVF gain", "%", -1)...)
	for i, f := range formats {
		row := f.String()
		var rDocs, rUp, rCheck any
		if byReflect[i].DocsPerSec > 0 {
			rDocs, rCheck = byReflect[i].DocsPerSec, 100*byReflect[i].CheckShare
			if byReflect[0].DocsPerSec > 0 {
				rUp = byReflect[i].DocsPerSec / byReflect[0].DocsPerSec
			}
		}
		_ = t.AddValues(row, parse[i].BytesPerDoc, parse[i].DocsPerSec, parse[i].MBPerSec,
			moreThan(e19.ArticleValue(articleRow(f), "parse speed-up")), parse[i].DocsPerSec/parse[0].DocsPerSec,
			rDocs, rUp, rCheck,
			hn[i].DocsPerSec, e19.ArticleValue(articleRow(f), "HNSW ingest gain"), 100*(hn[i].DocsPerSec/hn[0].DocsPerSec-1),
			iv[i].DocsPerSec, e19.ArticleValue(articleRow(f), "DiskBBQ ingest gain"), 100*(iv[i].DocsPerSec/iv[0].DocsPerSec-1))
	}
	for i := range formats {
		t.Note("%s: parsing is %.0f %% of HNSW ingest time and %.0f %% of IVF ingest time", formats[i],
			100*hn[i].Parse.Seconds()/hn[i].Total.Seconds(), 100*iv[i].Parse.Seconds()/iv[i].Total.Seconds())
	}
	p := env.Fill(profile.Default(profile.Elasticsearch))
	t.Note("HNSW: m %d, ef_construction %d (the Elasticsearch profile), %d worker(s), one AddBatch per bulk body; IVF: ivf.Build with 2-bit OSQ codes per list centroid, clusters of %d, over all parsed vectors (k-means included); ingest docs/s are per second of %s, which other jobs on the machine do not take",
		p.M, p.EfConstruction, p.Workers, ivf.DefaultClusterSize, hn[0].Clock)
	t.Note("the article's parse figure is a lower bound (\"more than 10×\"), measured in Elasticsearch's own parser; gains are per cent over float arrays")
	t.Note("parse and ingest read JSON token by token in place (valyala/fastjson), as Elasticsearch's DocumentParser reads Jackson's tokens: base64 decoded from the string token's bytes, each number from its text (strconv, float32); the encoding/json columns parse the same bodies into structs by reflection, and json.Valid share is the part of that time its first pass over every byte takes, timed alone")
	return &Result{Parse: parse, Reflect: byReflect, HNSW: hn, IVF: iv, Table: t}, nil
}

// moreThan prints an article's lower bound as ">v" (nil stays empty).
func moreThan(v any) any {
	if f, ok := v.(float64); ok {
		return ">" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	return v
}

// articleRow maps a format to the article's row name.
func articleRow(f bulk.Format) string {
	if f == bulk.Base64JSON {
		return "base64"
	}
	return f.String()
}

func runE19(env *experiment.Env) (*experiment.Report, error) {
	sz := SizesFor(env.Scale)
	res, err := Measure(env, bulk.Formats, sz)
	if err != nil {
		return nil, err
	}
	r := experiment.NewReport(e19, env)
	r.AddTable(res.Table)
	if sz.HNSW < env.Scale.N {
		r.Note("HNSW ingest runs on the first %d of the %d documents (three graph builds of them all would take a minute or more on a small machine); parsing and IVF use all of them", sz.HNSW, env.Scale.N)
	}
	r.Note("why base64 parses faster: a float array spends about %.1f bytes of body per dimension on decimal text that the parser must tokenise and turn into float32 (strconv's shortest-round-trip parsing, per number); base64 is one JSON string the scanner skips through, then a table-driven byte decode and a 4-byte load per dimension. msgpack skips even the string scan: the blob's length is in its header", res.Parse[0].BytesPerDoc/float64(env.Scale.Dim))
	r.Note("why the gain is larger for the cheaper index: the saving is a fixed cost per document; an HNSW insert (a beam search of ef_construction 100 plus neighbour pruning, growing with the graph) costs more than parsing even a float array, while building IVF lists (a few k-means passes and one 2-bit encoding per vector) costs less than parsing the float text, so removing the parse cost moves IVF's throughput much more (Amdahl)")
	if len(res.Reflect) > 1 && res.Reflect[0].DocsPerSec > 0 && res.Reflect[1].DocsPerSec > 0 {
		r.Note("the speed-up is the parser's as much as the format's: reading tokens in place, base64 parses %.1f× as fast as float arrays; through encoding/json, %.1f×, because %.0f %% of its base64 parse is json.Valid's pass of its state machine over every byte of the string (measured alone) before the decoding pass reads the string again, while the float array's cost, per-number parsing, is much the same in both",
			res.Parse[1].DocsPerSec/res.Parse[0].DocsPerSec, res.Reflect[1].DocsPerSec/res.Reflect[0].DocsPerSec, 100*res.Reflect[1].CheckShare)
	}
	r.Note("every decoded vector is checked bit for bit against the original before timing; all formats carry float32 exactly (float arrays through shortest-round-trip text)")
	r.Verdicts = append(r.Verdicts, Verdicts(env, res)...)
	return r, nil
}

// Verdicts compares Measure's result (float arrays first, then
// base64) with the article's figures: base64 parses more than 10× faster
// than float arrays (± 0: a bound) in a parser that reads tokens as
// Elasticsearch's does (bulk.Tokens; encoding/json's figure and the share
// of it its validating pass takes are in the reason), raises ingest
// throughput by about 20 % with HNSW (± 15 points) and about 100 % with
// DiskBBQ (the lab's IVF, ± 50 points), the gain larger for the cheaper
// index. Each gain is judged as a direction (base64 raises the
// throughput: a sign, the same on every machine) and a magnitude (the
// bands above, cut at 0 %). A gain's magnitude is the parse saving's
// share of the ingest, which the machine's indexing speed sets (its
// distance kernels and its load: a reader's AVX-512 machine measured
// +36–39 % for HNSW, outside 20 ± 15, at a scale where an AVX2 one
// measured inside it), so its reason always gives both
// costs, measured, the machine's kernels and the share the article's
// figure implies.
func Verdicts(env *experiment.Env, res *Result) experiment.Verdicts {
	if res == nil || len(res.Parse) < 2 || len(res.HNSW) < 2 || len(res.IVF) < 2 {
		return experiment.Verdicts{experiment.Holds("E19", "base64 parses faster than float arrays", "> 10×", "not measured", false, "fewer than two formats measured")}
	}
	gain := func(in []Ingest) float64 { return 100 * (in[1].DocsPerSec/in[0].DocsPerSec - 1) }
	parse := experiment.AtLeast("E19", "base64 parses faster than float arrays", 10, res.Parse[1].DocsPerSec/res.Parse[0].DocsPerSec, 0, "×")
	why := fmt.Sprintf("read token by token as Elasticsearch reads Jackson's tokens: %.1f µs per float-array document, %.1f µs per base64 one",
		1e6/res.Parse[0].DocsPerSec, 1e6/res.Parse[1].DocsPerSec)
	if len(res.Reflect) > 1 && res.Reflect[0].DocsPerSec > 0 && res.Reflect[1].DocsPerSec > 0 {
		why += fmt.Sprintf("; through Go's encoding/json %.1f× (%.1f and %.1f µs), %.0f %% of its base64 parse being json.Valid's pass over every byte",
			res.Reflect[1].DocsPerSec/res.Reflect[0].DocsPerSec, 1e6/res.Reflect[0].DocsPerSec, 1e6/res.Reflect[1].DocsPerSec, 100*res.Reflect[1].CheckShare)
	}
	parse = experiment.Because(parse, why)
	hg, ig := gain(res.HNSW), gain(res.IVF)
	kernels := "unknown"
	if env != nil && env.Machine.Kernel != "" {
		kernels = env.Machine.Kernel
	}
	cost := func(in []Ingest, article float64) string {
		n := float64(in[0].Docs)
		p := in[0].Parse.Seconds() / n * 1e6
		saved := 0.0
		if in[0].Total > 0 && in[1].Docs > 0 {
			saved = (in[0].Parse.Seconds()/n - in[1].Parse.Seconds()/float64(in[1].Docs)) / (in[0].Total.Seconds() / n)
		}
		return fmt.Sprintf("parsing float arrays costs %.0f µs a document against %.0f µs of indexing, %.0f %% of the ingest (base64 %.0f µs); the magnitude is the saving's share of the ingest, %.0f %% here (distance kernels %s), %.0f %% in the article's +%.0f %%, and it moves with the machine's indexing speed",
			p, (in[0].Total-in[0].Parse).Seconds()/n*1e6, 100*in[0].Parse.Seconds()/in[0].Total.Seconds(), in[1].Parse.Seconds()/float64(in[1].Docs)*1e6,
			100*saved, kernels, 100*article/(100+article), article)
	}
	hd := experiment.Direction("E19", "base64 raises HNSW ingest throughput", 20, hg, 0, 0, "%")
	hv := experiment.Because(experiment.Toward(experiment.Within("E19", "base64 raises HNSW ingest throughput by about 20 %", 20, hg, 15, "%"), 0), cost(res.HNSW, 20))
	id := experiment.Direction("E19", "base64 raises DiskBBQ (IVF) ingest throughput", 100, ig, 0, 0, "%")
	iv := experiment.Toward(experiment.Within("E19", "base64 raises DiskBBQ (IVF) ingest throughput by about 100 %", 100, ig, 50, "%"), 0)
	iv = experiment.Because(iv, cost(res.IVF, 100))
	return experiment.Verdicts{
		parse, hd, hv, id, iv,
		experiment.Holds("E19", "the ingest gain is larger for IVF than for HNSW", "+100 % vs +20 %", fmt.Sprintf("%+.0f %% vs %+.0f %%", ig, hg), ig > hg,
			"the parse saving is a fixed cost per document, a larger share of the cheaper IVF build"),
	}
}

// Default is the article's comparison: every bulk format, the float
// array (the baseline) first.
var Default = bulk.Formats
