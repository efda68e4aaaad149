package profile_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/profile"
)

// TestPlace checks the two stores' placement: the copies of each shard
// counted on the nodes, the copies per node, the copies no node can take,
// and that no node ever holds two copies of one shard.
func TestPlace(t *testing.T) {
	es, qd := profile.Elasticsearch, profile.Qdrant
	for _, c := range []struct {
		name    string
		kind    profile.Kind
		rep     profile.Replication
		nodes   int
		copies  int   // of every shard, counted
		perNode []int // copies on each node
		missing int
		layout  string
	}{
		{"es 3 shards, replicas 1 (DiskBBQ post)", es, profile.Replication{Shards: 3, Replicas: 1}, 3, 2, []int{2, 2, 2}, 0, "node 0: s0* s2; node 1: s1* s0; node 2: s2* s1"},
		{"qdrant 3 shards, RF 2 (DiskBBQ post)", qd, profile.Replication{Shards: 3, Replicas: 2}, 3, 2, []int{2, 2, 2}, 0, "node 0: s0 s1; node 1: s0 s2; node 2: s1 s2"},
		{"es replicas 0 (Elastic's reply)", es, profile.Replication{Shards: 3, Replicas: 0}, 3, 1, []int{1, 1, 1}, 0, ""},
		{"qdrant RF 1 (Elastic's reply)", qd, profile.Replication{Shards: 3, Replicas: 1}, 3, 1, []int{1, 1, 1}, 0, ""},
		{"es replicas 2: three copies, not two", es, profile.Replication{Shards: 3, Replicas: 2}, 3, 3, []int{3, 3, 3}, 0, ""},
		{"es replicas 1 on one node: the replica unassigned", es, profile.Replication{Shards: 2, Replicas: 1}, 1, 1, []int{2}, 2, "node 0: s0* s1*; 2 copies without a node"},
		{"qdrant RF 4 on 3 peers: three copies", qd, profile.Replication{Shards: 1, Replicas: 4}, 3, 3, []int{1, 1, 1}, 1, ""},
		{"es default on 3 nodes", es, profile.DefaultReplication(es, 3), 3, 2, []int{1, 1, 0}, 0, ""},
		{"qdrant default on 3 nodes", qd, profile.DefaultReplication(qd, 3), 3, 1, []int{1, 1, 1}, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := profile.Place(c.kind, c.rep, c.nodes)
			if err != nil {
				t.Fatal(err)
			}
			for s, n := range l.ShardCopies() {
				if n != c.copies {
					t.Errorf("shard %d has %d copies, want %d (%s)", s, n, c.copies, l)
				}
			}
			var per []int
			for _, node := range l.Nodes {
				per = append(per, len(node))
			}
			if !slices.Equal(per, c.perNode) || l.Missing != c.missing || l.Shared() {
				t.Errorf("copies per node %v, missing %d, shared %t; want %v, %d, false (%s)", per, l.Missing, l.Shared(), c.perNode, c.missing, l)
			}
			if c.layout != "" && l.String() != c.layout {
				t.Errorf("layout %q, want %q", l, c.layout)
			}
			if got, want := l.Placed(), c.rep.Shards*c.copies; got != want {
				t.Errorf("%d copies placed, want %d", got, want)
			}
		})
	}
}

// TestPlaceErrors checks the settings neither store accepts.
func TestPlaceErrors(t *testing.T) {
	for _, c := range []struct {
		kind  profile.Kind
		rep   profile.Replication
		nodes int
	}{
		{profile.Redis, profile.Replication{Shards: 1}, 1},
		{profile.Elasticsearch, profile.Replication{Shards: 0}, 3},
		{profile.Elasticsearch, profile.Replication{Shards: 1, Replicas: -1}, 3},
		{profile.Qdrant, profile.Replication{Shards: 3, Replicas: 0}, 3},
		{profile.Qdrant, profile.Replication{Shards: 3, Replicas: 1}, 0},
	} {
		if _, err := profile.Place(c.kind, c.rep, c.nodes); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("Place(%v, %+v, %d): %v, want ErrInvalidArgument", c.kind, c.rep, c.nodes, err)
		}
	}
}

// TestNodeVectors checks the vectors per node: a shard's share once per
// copy, so two copies hold the collection twice over the cluster.
func TestNodeVectors(t *testing.T) {
	l, err := profile.Place(profile.Qdrant, profile.Replication{Shards: 3, Replicas: 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := l.NodeVectors(21_000_000)
	if !slices.Equal(got, []float64{14e6, 14e6, 14e6}) {
		t.Errorf("vectors per node %v, want 14 M each", got)
	}
}
