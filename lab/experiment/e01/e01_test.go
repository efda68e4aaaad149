package e01

import (
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/measure"
)

// TestE01Order checks the ingest-order verdict: the article's order
// agrees; a store ahead of one the article ranks above it, by however
// little, is re-timed in alternating rounds when within 2× (here the
// rounds are given) and the medians decide, strictly: no tie band lets
// the opposite order agree.
func TestE01Order(t *testing.T) {
	ing := func(store string, docsPerSec float64) measure.Ingested {
		return measure.Ingested{Label: store, Docs: 30000, Acked: time.Duration(30000 / docsPerSec * float64(time.Second))}
	}
	for _, tc := range []struct {
		name   string
		rates  [4]float64 // qdrant, redis, elasticsearch, pgvector
		qdrant float64    // qdrant's re-timed rate (redis's is 40000)
		agrees bool
		why    string
	}{
		{"the article's order", [4]float64{50000, 45000, 3400, 2000}, 50000, true, "the order of the acknowledged docs/s"},
		{"redis 3 % ahead: re-timed, qdrant ahead", [4]float64{46522, 47928, 3468, 2009}, 50000, true, "re-timed in 5 alternating rounds (median; a rule added after runs that differed): redis 40000 docs/s (one timing 47928), qdrant 50000 docs/s (one timing 46522)"},
		{"redis 3 % ahead: re-timed, still 3 % ahead", [4]float64{46522, 47928, 3468, 2009}, 39000, false, "re-timed"},
		{"redis ahead by more: re-timed, still ahead", [4]float64{30000, 47928, 3468, 2009}, 20000, false, "re-timed"},
		{"pgvector ahead of elasticsearch: re-timed", [4]float64{46522, 45000, 2000, 3468}, 50000, true, "elasticsearch 5000 docs/s (one timing 2000)"},
		{"pgvector ahead by more than 2x: not re-timed", [4]float64{46522, 45000, 1000, 3468}, 50000, false, "the order of the acknowledged docs/s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ins := []measure.Ingested{ing("pgvector", tc.rates[3]), ing("redis", tc.rates[1]), ing("qdrant", tc.rates[0]), ing("elasticsearch", tc.rates[2])}
			env, err := experiment.NewEnv(experiment.Small, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			med := map[string]float64{"redis": 40000, "qdrant": tc.qdrant, "elasticsearch": 5000, "pgvector": 2500}
			calls := 0
			retimeE01 = func(_ *experiment.Env, names []string) (map[string][]float64, error) {
				calls++
				out := map[string][]float64{}
				for _, n := range names {
					out[n] = []float64{med[n], med[n], med[n]}
				}
				return out, nil
			}
			defer func() { retimeE01 = e01Retime }()
			// The Qdrant–Redis pair is always re-timed; the order only
			// when out of order.
			v := Verdicts(env, ins, nil)[0]
			if want := strings.Contains(tc.name, ": re-timed"); (calls > 1) != want {
				t.Errorf("order re-timed %v, want %v (reason %q)", calls > 1, want, v.Reason)
			}
			if v.Agrees != tc.agrees || !strings.Contains(v.Reason, tc.why) {
				t.Errorf("agrees %v (want %v), reason %q (want it to contain %q)", v.Agrees, tc.agrees, v.Reason, tc.why)
			}
		})
	}
}

// TestE01Pair: the Qdrant–Redis gap (the article's 5.5×) is judged as a
// direction and a magnitude on re-timed rounds: 1.25× agrees in direction
// only, 5× in both, Redis ahead in neither.
func TestE01Pair(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ins := []measure.Ingested{{Label: "qdrant", Docs: 100, Acked: time.Second}, {Label: "redis", Docs: 100, Acked: time.Second}}
	for _, c := range []struct {
		qdrant         []float64 // against redis's 1000 docs/s each round
		dir, magnitude string
	}{
		{[]float64{1250, 1275, 1225}, "agrees", "differs"},
		{[]float64{5000, 5100, 4900}, "agrees", "agrees"},
		{[]float64{1000, 1020, 980}, "differs", "differs"},
		{[]float64{900, 918, 882}, "differs", "differs"},
		// A median of 2× with rounds spread to 20×: the spread does not
		// widen the magnitude's band.
		{[]float64{1500, 2000, 20000}, "agrees", "differs"},
	} {
		retimeE01 = func(_ *experiment.Env, names []string) (map[string][]float64, error) {
			return map[string][]float64{"qdrant": c.qdrant, "redis": {1000, 1000, 1000}}, nil
		}
		vs := e01Pair(env, ins)
		if len(vs) != 2 || vs[0].Word() != c.dir || vs[1].Word() != c.magnitude {
			t.Errorf("qdrant %v docs/s against 1000: %v; want %s, %s", c.qdrant, vs, c.dir, c.magnitude)
		}
	}
	retimeE01 = e01Retime
}

// TestE01Retime re-times real stores: every named store gets a positive
// median rate, an unknown one is an error naming it.
func TestE01Retime(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	rates, err := e01Retime(env, []string{"qdrant", "redis"})
	if err != nil {
		t.Fatal(err)
	}
	if e01Median(rates["qdrant"]) <= 0 || e01Median(rates["redis"]) <= 0 || len(rates) != 2 || len(rates["redis"]) != e01Rounds {
		t.Errorf("rates %v", rates)
	}
	if _, err := e01Retime(env, []string{"milvus"}); err == nil || !strings.Contains(err.Error(), `"milvus"`) {
		t.Errorf("unknown store: %v", err)
	}
}
