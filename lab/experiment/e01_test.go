package experiment

import (
	"strings"
	"testing"
	"time"
)

// TestE01OrderTies checks the ingest-order verdict: the article's order
// agrees; two stores the article ranks one above the other agree when
// their acknowledged rates are within e01Tie (the reason says they are
// tied and how far apart), and differ when the lower-ranked one is
// faster by more.
func TestE01OrderTies(t *testing.T) {
	ing := func(store string, docsPerSec float64) Ingest {
		return Ingest{Store: store, Docs: 30000, Acked: time.Duration(30000 / docsPerSec * float64(time.Second))}
	}
	for _, tc := range []struct {
		name   string
		rates  [4]float64 // qdrant, redis, elasticsearch, pgvector
		agrees bool
		why    string
	}{
		{"the article's order", [4]float64{50000, 45000, 3400, 2000}, true, "the order of the acknowledged docs/s"},
		{"redis ahead within the tie", [4]float64{46522, 47928, 3468, 2009}, true, "qdrant 46522 and redis 47928 docs/s, 3 % apart"},
		{"redis ahead by more", [4]float64{30000, 47928, 3468, 2009}, false, ""},
		{"pgvector ahead of elasticsearch", [4]float64{46522, 45000, 2000, 3468}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ins := []Ingest{ing("pgvector", tc.rates[3]), ing("redis", tc.rates[1]), ing("qdrant", tc.rates[0]), ing("elasticsearch", tc.rates[2])}
			env, err := NewEnv(Small, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			v := E01Verdicts(env, ins, nil)[0]
			if v.Agrees != tc.agrees || !strings.Contains(v.Reason, tc.why) {
				t.Errorf("agrees %v (want %v), reason %q (want it to contain %q)", v.Agrees, tc.agrees, v.Reason, tc.why)
			}
		})
	}
}
