package e01

import (
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/measure"
)

// TestE01OrderTies checks the ingest-order verdict: the article's order
// agrees; two stores the article ranks one above the other agree when
// their acknowledged rates are within e01Tie (the reason says they are
// tied and how far apart), and differ when the lower-ranked one is
// faster by more.
func TestE01OrderTies(t *testing.T) {
	ing := func(store string, docsPerSec float64) measure.Ingested {
		return measure.Ingested{Label: store, Docs: 30000, Acked: time.Duration(30000 / docsPerSec * float64(time.Second))}
	}
	for _, tc := range []struct {
		name   string
		rates  [4]float64 // qdrant, redis, elasticsearch, pgvector
		agrees bool
		why    string
	}{
		{"the article's order", [4]float64{50000, 45000, 3400, 2000}, true, "the order of the acknowledged docs/s"},
		{"redis ahead within the tie", [4]float64{46522, 47928, 3468, 2009}, true, "qdrant 46522 and redis 47928 docs/s, 3 % apart"},
		// Out of order within 2×: the two stores are re-timed (here the
		// medians are given) and the medians decide.
		{"redis ahead by more: re-timed, qdrant ahead", [4]float64{30000, 47928, 3468, 2009}, true, "re-timed in 5 alternating rounds (median): redis 40000 docs/s (one timing 47928), qdrant 50000 docs/s (one timing 30000)"},
		{"redis ahead by more: re-timed, still ahead", [4]float64{30000, 47928, 3468, 2009}, false, "re-timed"},
		{"pgvector ahead of elasticsearch: re-timed", [4]float64{46522, 45000, 2000, 3468}, true, "elasticsearch 5000 docs/s (one timing 2000)"},
		{"pgvector ahead by more than 2x: not re-timed", [4]float64{46522, 45000, 1000, 3468}, false, "the order of the acknowledged docs/s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ins := []measure.Ingested{ing("pgvector", tc.rates[3]), ing("redis", tc.rates[1]), ing("qdrant", tc.rates[0]), ing("elasticsearch", tc.rates[2])}
			env, err := experiment.NewEnv(experiment.Small, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			med := map[string]float64{"redis": 40000, "qdrant": 50000, "elasticsearch": 5000, "pgvector": 2500}
			if strings.HasSuffix(tc.name, "still ahead") {
				med["qdrant"] = 20000
			}
			retimed := false
			retimeE01 = func(_ *experiment.Env, names []string) (map[string]float64, error) {
				retimed = true
				out := map[string]float64{}
				for _, n := range names {
					out[n] = med[n]
				}
				return out, nil
			}
			defer func() { retimeE01 = e01Retime }()
			v := Verdicts(env, ins, nil)[0]
			if want := strings.Contains(tc.name, ": re-timed"); retimed != want {
				t.Errorf("re-timed %v, want %v (reason %q)", retimed, want, v.Reason)
			}
			if v.Agrees != tc.agrees || !strings.Contains(v.Reason, tc.why) {
				t.Errorf("agrees %v (want %v), reason %q (want it to contain %q)", v.Agrees, tc.agrees, v.Reason, tc.why)
			}
		})
	}
}

// TestE01Retime re-times real stores: every named store gets a positive
// median rate, an unknown one is an error naming it.
func TestE01Retime(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	med, err := e01Retime(env, []string{"qdrant", "redis"})
	if err != nil {
		t.Fatal(err)
	}
	if med["qdrant"] <= 0 || med["redis"] <= 0 || len(med) != 2 {
		t.Errorf("medians %v", med)
	}
	if _, err := e01Retime(env, []string{"milvus"}); err == nil || !strings.Contains(err.Error(), `"milvus"`) {
		t.Errorf("unknown store: %v", err)
	}
}
