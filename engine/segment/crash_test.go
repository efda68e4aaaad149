package segment

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vfs"
)

// The crash test runs a real writer process (this test binary, re-executed
// with crashChildEnv set) and kills it with SIGKILL at random moments. The
// writer's schedule is deterministic: batch b deletes the documents of
// batch b−5, adds crashBatch new ones, force-merges every third batch,
// and commits; so the committed state after batch b is exactly the
// documents of batches b−4…b, and any other state seen after a reopen is a
// lost or half-visible commit.
const (
	crashChildEnv = "VECLAB_SEGMENT_CRASH_DIR"
	crashVisEnv   = "VECLAB_SEGMENT_CRASH_VISIBILITY"
	crashBatch    = 40
	crashDim      = 8
	crashKeep     = 5
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		if err := crashChild(dir); err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func crashConfig(dir string, vis Visibility) Config {
	return Config{Dir: dir, Dim: crashDim, Metric: engine.L2, Graph: hnsw.Config{M: 8, EfConstruction: 32}, BuildWorkers: 1, Seed: 3,
		Merge: MergePolicy{SegmentsPerTier: 3, MaxMergeAtOnce: 3, FloorDocs: 40}, BackgroundMerge: true,
		Visibility: vis, IndexingThreshold: 100, IndexChunk: 16}
}

func crashVector(key uint64) []float32 {
	r := rand.New(rand.NewPCG(key, 99))
	v := make([]float32, crashDim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func crashDocs(b int) []Doc {
	out := make([]Doc, crashBatch)
	for i := range out {
		k := uint64(b*crashBatch + i)
		out[i] = Doc{Key: k, Vector: crashVector(k), Source: []byte("doc " + strconv.FormatUint(k, 10))}
	}
	return out
}

// committedBatch returns the batch whose commit c holds (-1: empty), or an
// error if c's documents are not exactly one commit's.
func committedBatch(c *Collection) (int, error) {
	c.mu.RLock()
	var ks []uint64
	for k := range c.where {
		ks = append(ks, k)
	}
	c.mu.RUnlock()
	if len(ks) == 0 {
		return -1, nil
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	b := int(ks[len(ks)-1]) / crashBatch
	lo := max(0, b-crashKeep+1) * crashBatch
	want := (b+1)*crashBatch - lo
	if len(ks) != want || int(ks[0]) != lo || int(ks[len(ks)-1]) != (b+1)*crashBatch-1 {
		return b, fmt.Errorf("documents %d…%d (%d of them) are not the state of any commit (batch %d would hold %d…%d)",
			ks[0], ks[len(ks)-1], len(ks), b, lo, (b+1)*crashBatch-1)
	}
	return b, nil
}

func crashChild(dir string) error {
	vis, _ := strconv.Atoi(os.Getenv(crashVisEnv))
	c, err := Open(crashConfig(dir, Visibility(vis)))
	if err != nil {
		return err
	}
	b, err := committedBatch(c)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	for b++; ; b++ {
		if b >= crashKeep {
			old := make([]uint64, crashBatch)
			for i := range old {
				old[i] = uint64((b-crashKeep)*crashBatch + i)
			}
			if _, err := c.Delete(old...); err != nil {
				return err
			}
		}
		if err := c.Add(crashDocs(b)); err != nil {
			return err
		}
		if b%3 == 0 {
			fmt.Fprintln(out, "merge")
			out.Flush()
			if err := c.ForceMerge(1); err != nil {
				return err
			}
		}
		fmt.Fprintln(out, "commit")
		out.Flush()
		if err := c.Commit(); err != nil {
			return err
		}
		fmt.Fprintln(out, "committed", b)
		out.Flush()
	}
}

// TestCrashRecovery kills a writer process 100 times mid-ingest,
// mid-merge and mid-commit, and after each kill checks that the reopened
// collection holds exactly the last commit (or the one being written when
// the kill came), that no file is left that the commit does not name, and
// that each segment's graph answers as a fresh build from its vectors.
func TestCrashRecovery(t *testing.T) { crashRecovery(t, OnRefresh, 100) }

// TestCrashRecoveryHeads is the same for the head segment's
// visibilities (pgvector's, Redis's and Qdrant's), 20 kills each.
func TestCrashRecoveryHeads(t *testing.T) {
	for _, vis := range []Visibility{OnAdd, Queued, Plain} {
		t.Run(vis.String(), func(t *testing.T) { crashRecovery(t, vis, 20) })
	}
}

func crashRecovery(t *testing.T, vis Visibility, kills int) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(2026, 12))
	phases := map[string]int{}
	last := -1
	for kill := 0; kill < kills; kill++ {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+dir, fmt.Sprintf("%s=%d", crashVisEnv, vis))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The kill comes a random number of the writer's steps in, then a
		// random 0–30 ms later, so it lands anywhere in a step however
		// loaded the machine is.
		phase, acked := "start", last
		steps := rng.IntN(12)
		delay := time.Duration(rng.IntN(30_000)) * time.Microsecond
		sc := bufio.NewScanner(stdout)
		read := func() bool {
			if !sc.Scan() {
				return false
			}
			phase = sc.Text()
			if n, ok := strings.CutPrefix(phase, "committed "); ok {
				acked, _ = strconv.Atoi(n)
				phase = "ingest"
			}
			return true
		}
		for i := 0; i < steps && read(); i++ {
		}
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		for read() {
		}
		werr := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("kill %d: the writer ended by itself (%v): %s", kill, werr, stderr.String())
		}
		phases[phase]++
		c, err := Open(crashConfig(dir, vis))
		if err != nil {
			t.Fatalf("kill %d (during %s): reopen: %v", kill, phase, err)
		}
		b, err := committedBatch(c)
		if err != nil {
			t.Fatalf("kill %d (during %s): %v", kill, phase, err)
		}
		if b < acked || b > acked+1 {
			t.Fatalf("kill %d (during %s): reopened at batch %d, the writer had acknowledged the commit of %d", kill, phase, b, acked)
		}
		checkFreshBuild(t, c)
		checkOnlyCommitted(t, c, dir)
		c.Close()
		last = b
	}
	t.Logf("%d kills, last commit batch %d; killed during: %v", kills, last, phases)
	if last < kills/10 {
		t.Fatalf("the writer committed only %d batches in %d runs", last, kills)
	}
}

func checkFreshBuild(t *testing.T, c *Collection) {
	t.Helper()
	c.mu.RLock()
	snap := c.snap
	c.mu.RUnlock()
	for _, s := range snap {
		ix := s.graph
		if ix == nil {
			continue
		}
		g := c.cfg.Graph
		g.Dim, g.Metric, g.Seed, g.Workers = c.cfg.Dim, c.cfg.Metric, c.cfg.Seed+s.id, 1
		fresh, err := hnsw.New(g)
		if err != nil {
			t.Fatal(err)
		}
		rows := make([]uint64, s.n)
		for i := range rows {
			rows[i] = uint64(i)
		}
		if err := fresh.AddBatch(rows, s.vecs); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < s.n; i += max(1, s.n/5) {
			a, _, _ := ix.Query(s.vecs.Row(i), engine.Request{K: 5, Breadth: 20})
			b, _, _ := fresh.Query(s.vecs.Row(i), engine.Request{K: 5, Breadth: 20})
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("segment %d: reopened graph answers %v, a fresh build %v", s.id, a, b)
			}
		}
	}
}

func checkOnlyCommitted(t *testing.T, c *Collection, dir string) {
	t.Helper()
	names, err := vfs.Default.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	keep := referenced(c.last, nil)
	for _, n := range names {
		if !keep[base(n)] {
			t.Fatalf("file %s survived the reopen but no commit names it", n)
		}
	}
}
