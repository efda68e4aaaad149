package bench

import "testing"

func TestPortableCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "100000", "-peer", "all"}, "veclab bench hnsw -n 100000 -peer all"},
		{[]string{"-cache", "/tmp/perf/cache", "-json", "/tmp/perf/hnsw-100k-128.json", "-rounds", "3"},
			"veclab bench hnsw -json hnsw-100k-128.json -rounds 3"},
		{[]string{"-json", "/home/u/veclab/docs/perf/a.json", "-cache=/home/u/veclab/cache"},
			"veclab bench hnsw -json docs/perf/a.json -cache=cache"},
		{[]string{"--cpuprofile=/tmp/p.out", "-data", "/data/glove", "-single=false"},
			"veclab bench hnsw -data glove -single=false"},
		{[]string{"-cpuprofile", "/tmp/p.out", "-peer-src", "/src/bench/peers"}, "veclab bench hnsw"},
		{[]string{"-json", "rel/a.json", "/abs/arg"}, "veclab bench hnsw -json rel/a.json arg"},
	} {
		if got := PortableCommand("veclab bench hnsw", tc.args, "/home/u/veclab"); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.args, got, tc.want)
		}
	}
}

// TestPortableCommandRecord: perfdoc passes a saved command's words with
// no name and no working directory.
func TestPortableCommandRecord(t *testing.T) {
	got := PortableCommand("", []string{"veclab", "bench", "hnsw", "-cache", "/tmp/perf/cache", "-json", "/tmp/perf/x.json"}, "")
	if want := "veclab bench hnsw -json x.json"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
