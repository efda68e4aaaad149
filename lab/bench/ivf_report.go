package bench

import (
	"fmt"
	"html"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/table"
)

// Lines returns what the report's tables do not show, one line each: the
// machine, the codes, the IVF's settings and the vector file.
func (r *IVFReport) Lines() []string {
	c := r.Config
	out := []string{fmt.Sprintf("machine: %s/%s, GOMAXPROCS %d, searches single-threaded; other jobs may share the CPU (load average %s at the start)",
		runtime.GOOS, runtime.GOARCH, r.GOMAXPROCS, r.Load)}
	centring := "each list's centroid (DiskBBQ)"
	if c.GlobalCentroid {
		centring = "the data mean"
	}
	codes := fmt.Sprintf("codes: OSQ around %s, 4-bit query codes for ≤ 4-bit lists", centring)
	if c.Hierarchical {
		codes = fmt.Sprintf("IVF lists from hierarchical k-means (DiskBBQ, target %d vectors per list); ", ivf.DefaultClusterSize) + codes
	}
	out = append(out, codes,
		fmt.Sprintf("IVF: nlist %d, %d k-means iterations, spill %t, build workers %d; quantized lists rescore ⌈k·%g⌉ candidates from the on-disk vector file (warm cache, sequential reads through its mapping, one mincore probe per cluster of rows)",
			c.Nlist, c.Iters, c.Spill, c.Workers, c.Oversample),
		fmt.Sprintf("vector file: vectors.vec, %.1f MB (%.0f B/vector incl. per-row CRC)", r.VectorFileMB, r.VectorFileBPV))
	return out
}

// addRow appends a row of cells; every caller passes one per column.
func addRow(t *table.Table, cells ...table.Cell) { t.Rows = append(t.Rows, cells) }

// orMissing is a float cell, or a missing one for 0 (not measured).
func orMissing(v float64, prec int) table.Cell {
	if v == 0 {
		return table.Empty()
	}
	return table.Float(v, prec)
}

func msCell(d time.Duration, prec int) table.Cell {
	return table.Float(float64(d)/float64(time.Millisecond), prec)
}

// p50Cell is a latency in ms to the microsecond.
func p50Cell(d time.Duration) table.Cell { return table.Float(float64(d.Microseconds())/1000, 3) }

// Tables returns the report's tables in order: builds, the nprobe and
// visit sweep, the I/O table and the posting lists on disk (when
// measured), then the FAISS comparison's sweep, its matched-recall ratios
// and its training times (with the peer).
func (r *IVFReport) Tables() []*table.Table {
	out := []*table.Table{r.buildTable(), r.sweepTable()}
	if r.IO != nil {
		out = append(out, r.ioModesTable(), r.diskListsTable())
	}
	if r.Faiss != nil {
		out = append(out, r.faissSweepTable(), r.faissRatioTable(), r.faissTrainTable())
	}
	return out
}

func (r *IVFReport) buildTable() *table.Table {
	t := table.New("IVF builds (train = ivf.Train; its CPU time is the thread's, shown with one build worker)",
		table.Col("codes", ""), table.Col("lists", ""), table.Column{Header: "train wall", Unit: "ms", Prec: 0},
		table.Column{Header: "train CPU", Unit: "ms", Prec: 0}, table.Column{Header: "assign", Unit: "ms", Prec: 0},
		table.Column{Header: "encode", Unit: "ms", Prec: 0}, table.Col("spilled", ""),
		table.Column{Header: "resident B/vec", Prec: 1}, table.Column{Header: "codes B/vec", Prec: 1}, table.Column{Header: "disk B/vec", Prec: 0})
	for _, b := range r.Builds {
		cpu := table.Empty()
		if r.Config.Workers == 1 {
			cpu = msCell(b.TrainCPU, 0)
		}
		addRow(t, table.Text(CodesName(b.Bits)), table.Int(b.Lists), msCell(b.TrainWall, 0), cpu, msCell(b.Assign, 0), msCell(b.Encode, 0),
			table.Int(b.Spilled), table.Float(b.Resident, 1), table.Float(b.Codes, 1), table.Float(b.DiskPerVec, 0))
	}
	return t
}

func (r *IVFReport) sweepTable() *table.Table {
	t := table.New(fmt.Sprintf("Search sweep, k = %d on one thread (recall@100 from an untimed k = 100 pass; reads = rescoring reads from the vector file)", ivfK),
		table.Col("codes", ""), table.Col("search", ""), table.Column{Header: metrics.RecallHeader(ivfK), Prec: 3}, table.Column{Header: metrics.RecallHeader(100), Prec: 3},
		table.Column{Header: "QPS (k=10)", Prec: -1}, table.Column{Header: "CPU-QPS", Prec: -1}, table.Column{Header: "p50", Unit: "ms", Prec: 3},
		table.Column{Header: "lists/q", Prec: 1}, table.Column{Header: "scanned/q", Prec: -1}, table.Column{Header: "reads/q", Prec: 1},
		table.Column{Header: "cache-served", Prec: 3})
	for _, p := range r.Sweep {
		reads, served := table.Empty(), table.Empty()
		if p.IO.Reads > 0 {
			reads, served = table.Float(p.ReadsPerQuery(), 1), table.Float(p.IO.CacheHitRatio(), 3)
		}
		addRow(t, table.Text(CodesName(p.Bits)), table.Text(p.Setting), table.Float(p.Recall10, 3), table.Float(p.Recall100, 3),
			table.Float(p.QPS, -1), orMissing(p.CPUQPS, -1), p50Cell(p.P50), table.Float(p.Lists, 1), table.Float(p.Scanned, -1), reads, served)
	}
	return t
}

func (r *IVFReport) ioModesTable() *table.Table {
	x, c := r.IO, r.Config
	t := table.New(fmt.Sprintf("Rescoring I/O, %s lists, visit=%g%%, oversample %g (k=10): every mode reads the same vectors; \"cold\" evicts the file's pages (fsync + posix_fadvise DONTNEED, checked by mincore) before every query, untimed",
		CodesName(x.Bits), x.Visit, c.Oversample),
		table.Col("reads served by", ""), table.Column{Header: metrics.RecallHeader(ivfK), Prec: 3}, table.Column{Header: "QPS", Prec: -1},
		table.Column{Header: "CPU-QPS", Prec: -1}, table.Column{Header: "p50", Unit: "ms", Prec: 3}, table.Column{Header: "reads/q", Prec: 1},
		table.Column{Header: "KB/q", Prec: 1}, table.Column{Header: "cache-served", Prec: 3}, table.Column{Header: "device reads/q", Prec: 1})
	var readsPerQ float64
	for _, m := range x.Modes {
		p := m.Point
		nq := float64(max(p.Queries, 1))
		readsPerQ = p.ReadsPerQuery()
		addRow(t, table.Text(m.Name), table.Float(p.Recall10, 3), table.Float(p.QPS, -1), orMissing(p.CPUQPS, -1), p50Cell(p.P50),
			table.Float(readsPerQ, 1), table.Float(float64(p.IO.Bytes)/nq/1024, 1), table.Float(p.IO.CacheHitRatio(), 3),
			table.Float(float64(p.IO.DeviceReads())/nq, 1))
	}
	// E13: the I/O budget at the measured reads per query.
	t.Note("E13 budget at %.1f measured reads/query: 100 QPS needs %.0f IOPS; a gp3 baseline volume (3,000 IOPS) caps rescoring at %.0f QPS if no read is served from the page cache",
		readsPerQ, 100*readsPerQ, 3000/max(readsPerQ, 1e-9))
	return t
}

func (r *IVFReport) diskListsTable() *table.Table {
	x := r.IO
	t := table.New(fmt.Sprintf("E27, posting lists on disk (%s, visit=%g%%, oversample %g, sequential reads; \"cold\" evicts both files before every query, untimed)",
		CodesName(x.Bits), x.Visit, r.Config.Oversample),
		table.Col("reads served by", ""), table.Column{Header: metrics.RecallHeader(ivfK), Prec: 3}, table.Column{Header: "QPS", Prec: -1},
		table.Column{Header: "p50", Unit: "ms", Prec: 3}, table.Column{Header: "list reads/q", Prec: 1}, table.Column{Header: "list KB/q", Prec: 1},
		table.Column{Header: "lists cache-served", Prec: 3}, table.Column{Header: "vector reads/q", Prec: 1},
		table.Column{Header: "vectors cache-served", Prec: 3})
	for _, m := range x.DiskLists {
		p := m.Point
		nq := float64(max(p.Queries, 1))
		addRow(t, table.Text(m.Name), table.Float(p.Recall10, 3), table.Float(p.QPS, -1), p50Cell(p.P50),
			table.Float(float64(m.Lists.Reads)/nq, 1), table.Float(float64(m.Lists.Bytes)/nq/1024, 1), table.Float(m.Lists.CacheHitRatio(), 3),
			table.Float(p.ReadsPerQuery(), 1), table.Float(p.IO.CacheHitRatio(), 3))
	}
	t.Note("resident with lists on disk: %.1f B/vector (centroids, quantizers); list file %.1f MB, vector file %.1f MB",
		x.Resident, x.ListFileMB, x.VectorFileMB)
	return t
}

func (r *IVFReport) faissSweepTable() *table.Table {
	f := r.Faiss
	t := table.New(fmt.Sprintf("FAISS peer: faiss %s (%s) — %s; same data (.fvecs), nlist %d, %d iterations, nprobe sweep, k=10",
		f.Version, f.Compile, f.Note, f.Nlist, r.Config.Iters),
		table.Col("index", ""), table.Col("setting", ""), table.Column{Header: metrics.RecallHeader(ivfK), Prec: 3},
		table.Column{Header: "QPS", Prec: -1}, table.Column{Header: "CPU-QPS", Prec: -1})
	add := func(name string, sw IVFSweep) {
		for i, p := range sw.Wall {
			addRow(t, table.Text(name), table.Text(p.Label), table.Float(p.Recall, 3), table.Float(p.QPS, -1), table.Float(sw.CPU[i].QPS, -1))
		}
	}
	for _, sw := range f.Peer {
		add(sw.Name, sw)
	}
	for _, sw := range f.Ours {
		add("veclab "+sw.Name, sw)
	}
	t.Note("veclab's 1/2/4-bit rows rescore ⌈k·oversample⌉ candidates (oversample %v × every nprobe) from the warm vector file (read through its mapping, per-row CRC checked, no page-cache probe) or from RAM",
		r.Config.PeerOversample)
	return t
}

func (r *IVFReport) faissRatioTable() *table.Table {
	f := r.Faiss
	t := table.New(fmt.Sprintf("Single-threaded QPS at recall@10 ≥ %g (best swept point reaching it), veclab / peer, by wall time and by CPU time (FAISS %s: %s)",
		ivfTarget, f.Version, f.Note),
		table.Col("veclab", ""), table.Col("vs", ""), table.Col("veclab QPS", ""), table.Col("peer QPS", ""),
		table.Column{Header: "wall ratio", Prec: 2}, table.Col("veclab CPU-QPS", ""), table.Col("peer CPU-QPS", ""), table.Column{Header: "CPU ratio", Prec: 2})
	for _, x := range f.Ratios {
		switch {
		case !x.Reached:
			addRow(t, table.Text(x.Ours), table.Text(x.Peer), table.Text("not reached"), table.Empty(), table.Empty(), table.Empty(), table.Empty(), table.Empty())
		case !x.PeerReached:
			addRow(t, table.Text(x.Ours), table.Text(x.Peer), qpsAtCell(x.Wall.QPS, x.Wall.Label), table.Text("not reached"), table.Empty(), table.Empty(), table.Empty(), table.Empty())
		default:
			addRow(t, table.Text(x.Ours), table.Text(x.Peer), qpsAtCell(x.Wall.QPS, x.Wall.Label), qpsAtCell(x.PeerWall.QPS, x.PeerWall.Label),
				table.Float(x.Wall.QPS/x.PeerWall.QPS, 2), qpsAtCell(x.CPU.QPS, x.CPU.Label), qpsAtCell(x.PeerCPU.QPS, x.PeerCPU.Label),
				table.Float(x.CPU.QPS/x.PeerCPU.QPS, 2))
		}
	}
	return t
}

// qpsAtCell is "QPS (setting)", the fastest point reaching the target.
func qpsAtCell(qps float64, label string) table.Cell {
	return table.Text(fmt.Sprintf("%.0f (%s)", qps, label))
}

func (r *IVFReport) faissTrainTable() *table.Table {
	f := r.Faiss
	t := table.New(fmt.Sprintf("Training (k-means, random-sample init, %d lists × %d iterations, %d sampled vectors, one thread; ratio veclab/FAISS, < 1 = veclab faster)",
		f.Nlist, r.Config.Iters, f.Trained),
		table.Col("trainer", ""), table.Column{Header: "wall", Unit: "s", Prec: 3}, table.Column{Header: "wall ratio", Prec: 2},
		table.Column{Header: "CPU", Unit: "s", Prec: 3}, table.Column{Header: "CPU ratio", Prec: 2})
	ow, oc := f.TrainWall.Seconds(), f.TrainCPU.Seconds()
	addRow(t, table.Text("veclab ivf.Train"), table.Float(ow, 3), table.Empty(), table.Float(oc, 3), table.Empty())
	addRow(t, table.Text("FAISS Kmeans"), table.Float(f.KmeansS, 3), table.Float(ow/f.KmeansS, 2), table.Float(f.KmeansCPU, 3), table.Float(oc/f.KmeansCPU, 2))
	addRow(t, table.Text("FAISS "+f.IndexName+".train"), table.Float(f.IndexTrainS, 3), table.Float(ow/f.IndexTrainS, 2),
		table.Float(f.IndexTrainCPU, 3), table.Float(oc/f.IndexTrainCPU, 2))
	return t
}

// String is the report as `veclab bench ivf` prints it: the lines of
// [IVFReport.Lines], then every table.
func (r *IVFReport) String() string {
	var b strings.Builder
	r.WriteText(&b)
	return b.String()
}

// WriteText writes [IVFReport.String] to w.
func (r *IVFReport) WriteText(w io.Writer) {
	for _, l := range r.Lines() {
		fmt.Fprintln(w, l)
	}
	for _, t := range r.Tables() {
		fmt.Fprintf(w, "\n%s", t.String())
	}
	fmt.Fprintf(w, "\nload average %s at the end\n", r.EndLoad)
}

// Markdown renders the report for a notebook cell or a report file.
func (r *IVFReport) Markdown() string {
	var b strings.Builder
	for _, l := range r.Lines() {
		b.WriteString("- " + mdTextReplacer.Replace(l) + "\n")
	}
	for _, t := range r.Tables() {
		b.WriteString("\n" + t.Markdown())
	}
	fmt.Fprintf(&b, "\nload average %s at the end\n", r.EndLoad)
	return b.String()
}

var mdTextReplacer = strings.NewReplacer("<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`)

// HTML renders the report as an HTML fragment.
func (r *IVFReport) HTML() string {
	var b strings.Builder
	b.WriteString(`<div class="veclab-report">` + "\n<ul>\n")
	for _, l := range r.Lines() {
		b.WriteString("<li>" + html.EscapeString(l) + "</li>\n")
	}
	b.WriteString("</ul>\n")
	for _, t := range r.Tables() {
		b.WriteString(t.HTML())
	}
	b.WriteString("<p>load average " + html.EscapeString(r.EndLoad) + " at the end</p>\n</div>\n")
	return b.String()
}
