package pglive_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/internal/testenv"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/pglive"
)

// startServer starts the embedded server for a test. Without node (or its
// npm packages) the test is skipped on a developer's machine and fails
// under CI (CI=true) (internal/testenv).
func startServer(t *testing.T, opt pglive.ServerOptions) *pglive.Server {
	t.Helper()
	testenv.Need(t, testenv.PGlite)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := pglive.Start(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestJSONPath(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"category == 'c3' && year >= 2022", `$.category == "c3" && $.year >= 2022`},
		{"category in ['c1', 'c2'] || year < 2016", `($.category == "c1" || $.category == "c2") || $.year < 2016`},
		{"region nin ['eu']", `!($.region == "eu")`},
		{"!(year != 2020) && (region == 'us' || region == 'eu')", `!($.year != 2020) && ($.region == "us" || $.region == "eu")`},
		{"score > 0.5 && flag == true", `$.score > 0.5 && $.flag == true`},
	} {
		got, err := pglive.JSONPath(c.in)
		if err != nil || got != c.want {
			t.Errorf("JSONPath(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := pglive.JSONPath("category =="); !errors.Is(err, pglive.ErrBadArgument) {
		t.Errorf("a broken filter: %v, want ErrBadArgument", err)
	}
	p, err := pglive.SQLPredicate(`category == 'it\'s'`)
	if err != nil || !strings.Contains(p, `"it''s"`) {
		t.Errorf("a quote in a value must be doubled inside the SQL literal: %q, %v", p, err)
	}
}

// TestLive loads a small data set into the embedded PostgreSQL and checks
// what the experiments rely on: the index answers unfiltered queries
// nearly exactly, a sequential scan (enable_seqscan on, a plan PostgreSQL
// prefers for a big ef_search) answers exactly, the plans are told apart,
// and the sizes are those of a real relation.
func TestLive(t *testing.T) {
	srv := startServer(t, pglive.ServerOptions{})
	ctx := context.Background()
	db, err := pglive.Connect(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Vector != "0.8.7" || !strings.HasPrefix(db.Server, "18.") {
		t.Errorf("embedded server: %s, want PostgreSQL 18 with pgvector 0.8.7 (the versions the lock file pins)", db)
	}
	ds, err := dataset.Generate(dataset.Config{N: 1500, Queries: 20, Dim: 32, Clusters: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	tab, st, err := db.Load(ctx, ds.Base, ds.Meta, pglive.LoadOptions{Batch: 500})
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != 1500 || len(st.Batches) != 3 {
		t.Errorf("load stats %+v: want 1500 rows in 3 batches", st)
	}
	ex, err := flat.New(ds.Base, flat.Config{Metric: engine.Cosine})
	if err != nil {
		t.Fatal(err)
	}
	var recIdx, recSeq float64
	for i := 0; i < ds.Queries.N; i++ {
		q := ds.Queries.Row(i)
		truth, _, err := ex.Search(q, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]engine.ID, len(truth))
		for j, r := range truth {
			ids[j] = r.ID
		}
		a, err := tab.Search(ctx, pglive.Query{Vector: q, K: 10, Settings: pglive.Settings{EfSearch: 100, SeqScanOff: true}})
		if err != nil {
			t.Fatal(err)
		}
		if !a.Plan.IndexScan {
			t.Fatalf("enable_seqscan = off: plan %v, want the HNSW index", a.Plan)
		}
		recIdx += metrics.Recall(results(a), ids, 10)
		// A filter matching everything through the jsonpath predicate,
		// with the index's startup cost at its highest: PostgreSQL scans.
		b, err := tab.Search(ctx, pglive.Query{Vector: q, K: 10, Filter: "year >= 0", Settings: pglive.Settings{EfSearch: 1000}})
		if err != nil {
			t.Fatal(err)
		}
		if b.Plan.IndexScan {
			t.Fatalf("ef_search 1000 on 1,500 rows: plan %v, want a sequential scan", b.Plan)
		}
		recSeq += metrics.Recall(results(b), ids, 10)
		if i == 0 {
			t.Logf("index: %v; seq: %v", a.Plan, b.Plan)
		}
	}
	n := float64(ds.Queries.N)
	if recIdx/n < 0.9 || recSeq/n < 0.999 {
		t.Errorf("recall@10: index %.3f (want ≥ 0.9), sequential scan %.3f (want 1: exact)", recIdx/n, recSeq/n)
	}
	sz, err := tab.Sizes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// 1,500 rows of 32 floats (136-byte vectors) fill a few dozen 8 kB
	// pages; the HNSW index more (its elements carry the vector and 2·m
	// neighbour slots).
	if sz.Heap < 8192*10 || sz.Index <= sz.Heap/2 || sz.Heap%8192 != 0 {
		t.Errorf("sizes %+v: want whole 8 kB pages, heap ≥ 10 pages, index not far below the heap", sz)
	}
	if _, err := tab.Search(ctx, pglive.Query{Vector: ds.Queries.Row(0), K: 10, Settings: pglive.Settings{IterativeScan: "sideways"}}); !errors.Is(err, pglive.ErrBadArgument) {
		t.Errorf("iterative_scan sideways: %v, want ErrBadArgument", err)
	}
	if _, err := tab.Search(ctx, pglive.Query{Vector: ds.Queries.Row(0)[:5], K: 10}); !errors.Is(err, pglive.ErrBadArgument) {
		t.Errorf("a 5-dimensional query: %v, want ErrBadArgument", err)
	}
	// Spring AI's index has no WITH clause (pgvector's defaults); given
	// build parameters reach the index, and pgvector's bounds are its own.
	if o, err := tab.IndexOptions(ctx); err != nil || o != "" {
		t.Errorf("default index options %q, %v: want none (m 16, ef_construction 64)", o, err)
	}
	small, err := dataset.Generate(dataset.Config{N: 100, Queries: 1, Dim: 32, Clusters: 2, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m, efc int
		want   string // the index's reloptions, or what pgvector's error says
	}{
		{8, 40, "m=8,ef_construction=40"},
		{24, 0, "m=24"},
		{1, 0, `value 1 out of bounds for option "m"`},
		{16, 16, "ef_construction must be greater than or equal to 2 * m"},
	} {
		tb, _, err := db.Load(ctx, small.Base, nil, pglive.LoadOptions{Table: "veclab_with", M: c.m, EfConstruction: c.efc})
		var got string
		if err == nil {
			got, err = tb.IndexOptions(ctx)
		}
		if err != nil {
			got = err.Error()
		}
		if got != c.want && !strings.Contains(got, ": "+c.want+" (SQLSTATE 22023)") {
			t.Errorf("m %d, ef_construction %d: %s, want %s", c.m, c.efc, got, c.want)
		}
	}
	if _, _, err := db.Load(ctx, small.Base, nil, pglive.LoadOptions{Table: "veclab_with", M: -1}); !errors.Is(err, pglive.ErrBadArgument) {
		t.Errorf("m -1: %v, want ErrBadArgument", err)
	}
}

func results(a pglive.Answer) []engine.Result {
	rs := make([]engine.Result, len(a.IDs))
	for i, id := range a.IDs {
		rs[i] = engine.Result{ID: engine.ID(id), Dist: float32(a.Dists[i])}
	}
	return rs
}

// TestErrors checks that each way the embedded server or a connection can
// fail says what to do.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("no node", func(t *testing.T) {
		_, err := pglive.Start(ctx, pglive.ServerOptions{Node: filepath.Join(t.TempDir(), "node")})
		if !errors.Is(err, pglive.ErrNoNode) || !strings.Contains(err.Error(), "install") {
			t.Errorf("got %v, want ErrNoNode saying what to install", err)
		}
	})
	t.Run("no packages", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "server.mjs"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		testenv.Need(t, testenv.Node) // the check for npm packages comes after node's
		_, err := pglive.Start(ctx, pglive.ServerOptions{Dir: dir})
		if !errors.Is(err, pglive.ErrNoPackages) || !strings.Contains(err.Error(), "npm ci") {
			t.Errorf("got %v, want ErrNoPackages saying npm ci", err)
		}
	})
	t.Run("bad URL", func(t *testing.T) {
		_, err := pglive.Connect(ctx, "postgres://u:secret@[::1")
		if !errors.Is(err, pglive.ErrBadArgument) || strings.Contains(err.Error(), "secret") {
			t.Errorf("got %v, want ErrBadArgument without the password", err)
		}
	})
	t.Run("nothing listening", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		_, err = pglive.Connect(ctx, "postgres://postgres:secret@"+addr+"/postgres?connect_timeout=3")
		if err == nil || !strings.Contains(err.Error(), "nothing listens") || strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "\n") {
			t.Errorf("got %v, want 'nothing listens' on one line without the password", err)
		}
	})
	t.Run("port in use", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		port := l.Addr().(*net.TCPAddr).Port
		if _, _, err := pglive.CheckServer(pglive.ServerOptions{}); err != nil {
			startServer(t, pglive.ServerOptions{}) // skips or fails as the other live tests
		}
		_, err = pglive.Start(ctx, pglive.ServerOptions{Port: port})
		if !errors.Is(err, pglive.ErrPortInUse) || !strings.Contains(err.Error(), "choose another port") {
			t.Errorf("got %v, want ErrPortInUse saying what to do", err)
		}
	})
	t.Run("no vector extension", func(t *testing.T) {
		srv := startServer(t, pglive.ServerOptions{NoVector: true})
		_, err := pglive.Connect(ctx, srv.URL)
		if !errors.Is(err, pglive.ErrNoVector) || !strings.Contains(err.Error(), "install pgvector") {
			t.Errorf("got %v, want ErrNoVector saying to install pgvector", err)
		}
	})
}

// TestAuthMessage checks the message of a refused password. The embedded
// server does not authenticate (PGlite's socket server accepts any
// password), so this test builds the server's error as PostgreSQL sends
// it (SQLSTATE 28P01) rather than provoking it.
func TestAuthMessage(t *testing.T) {
	err := pglive.ExplainError("db:5432/x", "connecting", &pgconn.PgError{Code: "28P01", Message: `password authentication failed for user "lab"`})
	if !errors.Is(err, pglive.ErrAuth) || !strings.Contains(err.Error(), "password in the URL") {
		t.Errorf("got %v, want ErrAuth naming where to fix the password", err)
	}
}

// TestInterruptedLoad checks what a notebook's interrupt does to a load:
// between batches it stops cleanly, during a statement pgx closes the
// connection, and in both cases the next call works on the same DB (it
// reconnects) and the error is the context's, as the kernel needs to
// report the cell as interrupted.
func TestInterruptedLoad(t *testing.T) {
	srv := startServer(t, pglive.ServerOptions{})
	db, err := pglive.Connect(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, err := dataset.Generate(dataset.Config{N: 3000, Queries: 5, Dim: 32, Clusters: 8, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	_, st, err := db.Load(ctx, ds.Base, ds.Meta, pglive.LoadOptions{Batch: 500, Progress: func(done, total int, _ string) {
		if done >= 1000 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || st.Rows != 1000 {
		t.Fatalf("cancelled after two batches: rows %d, err %v; want 1000 rows and context.Canceled", st.Rows, err)
	}

	// One statement inserting all rows, under a context that ends while
	// it runs.
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	_, _, err = db.Load(ctx, ds.Base, ds.Meta, pglive.LoadOptions{Batch: 3000})
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		t.Fatalf("a load whose context ends mid-statement: %v, want the context's error", err)
	}

	tab, st, err := db.Load(context.Background(), ds.Base, ds.Meta, pglive.LoadOptions{Batch: 1000})
	if err != nil || st.Rows != 3000 {
		t.Fatalf("the load after the interrupts: rows %d, err %v", st.Rows, err)
	}
	a, err := tab.Search(context.Background(), pglive.Query{Vector: ds.Queries.Row(0), K: 10, Settings: pglive.Settings{EfSearch: 100}})
	if err != nil || len(a.IDs) != 10 {
		t.Fatalf("search after the interrupts: %v, %d ids", err, len(a.IDs))
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Search(context.Background(), pglive.Query{Vector: ds.Queries.Row(0), K: 10}); !errors.Is(err, pglive.ErrBadArgument) {
		t.Errorf("search on a closed DB: %v, want ErrBadArgument (a closed DB must not reconnect)", err)
	}
}

// TestServerDirFindsTheCheckout resolves the server directory from inside
// the checkout (internal/checkout) and refuses, with ErrBadArgument, from
// a directory outside any checkout or with a VECLAB_PGLIVE_DIR that has no
// server.mjs.
func TestServerDirFindsTheCheckout(t *testing.T) {
	t.Setenv("VECLAB_PGLIVE_DIR", "")
	dir, err := pglive.ServerDir("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "server.mjs")); err != nil {
		t.Fatalf("ServerDir() = %s: %v", dir, err)
	}
	if _, err := pglive.ServerDir(t.TempDir()); !errors.Is(err, pglive.ErrBadArgument) {
		t.Fatalf("ServerDir of an empty directory: %v", err)
	}
	t.Chdir(t.TempDir())
	if _, err := pglive.ServerDir(""); !errors.Is(err, pglive.ErrBadArgument) || !strings.Contains(err.Error(), "VECLAB_PGLIVE_DIR") {
		t.Fatalf("ServerDir outside a checkout: %v", err)
	}
}
