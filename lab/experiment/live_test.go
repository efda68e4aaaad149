package experiment

import (
	"context"
	"testing"
	"time"

	"github.com/veclab/veclab/internal/testenv"
	"github.com/veclab/veclab/lab/pglive"
)

// embeddedPG starts the embedded PostgreSQL for a test and connects to it.
// Without node or the npm packages the test is skipped on a developer's
// machine and fails under CI (CI=true) (internal/testenv).
func embeddedPG(t *testing.T) *pglive.DB {
	t.Helper()
	testenv.Need(t, testenv.PGlite)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, err := pglive.Open(ctx, pglive.Embedded)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// fidelityScale is small enough for CI. On 6,000 rows PostgreSQL scans
// the table for every E07 row (the index wins from about 25,000 rows on the
// article's 384-d documents: lab/profile TestPgvectorPlanMatchesPostgreSQL
// holds the cost model to the real planner's costs there), so the test
// also runs E07 under enable_seqscan = off, where both keep the HNSW index
// and the post-filter and iterative scans are compared.
var fidelityScale = Scale{Name: "custom", N: 6000, Dim: 384, Clusters: 40, Queries: 40, Warmup: 3, K: 10, Batch: 1000}
