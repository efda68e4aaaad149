package e14

import (
	"testing"

	"github.com/veclab/veclab/lab/profile"
)

// TestClusterVerdicts checks the layout and memory verdicts against
// layouts placed with other settings and other bytes per vector: each
// verdict turns when what it reads does.
func TestClusterVerdicts(t *testing.T) {
	place := func(k profile.Kind, shards, replicas int) profile.Layout {
		l, err := profile.Place(k, profile.Replication{Shards: shards, Replicas: replicas}, 3)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	es, qd := profile.Elasticsearch, profile.Qdrant
	articles := Cluster{
		Post:           [2]profile.Layout{place(es, 3, 1), place(qd, 3, 2)},
		Reply:          [2]profile.Layout{place(es, 3, 0), place(qd, 3, 1)},
		QdrantResident: 534, ESCodes: 206, BF16: 1536, F32: 3072,
	}
	for _, c := range []struct {
		name string
		edit func(*Cluster)
		want string // agrees (a) or differs (d), verdict by verdict
	}{
		{"the articles' settings", func(*Cluster) {}, "aaaaa"},
		{"replicas: 2 read as Qdrant's RF=2", func(c *Cluster) { c.Post[0] = place(es, 3, 2) }, "dadaa"},
		{"Qdrant's RF=1 read as Elasticsearch's replicas: 1", func(c *Cluster) { c.Reply[1] = place(qd, 3, 2) }, "adaad"}, // and twice Qdrant's bytes per node,
		{"two shards", func(c *Cluster) { c.Post = [2]profile.Layout{place(es, 2, 1), place(qd, 2, 2)} }, "aadaa"},
		{"vectors small enough for the heap to stand for them", func(c *Cluster) { c.ESCodes, c.BF16 = 8, 8 }, "aaada"},
		{"Qdrant's resident bytes beyond the node", func(c *Cluster) { c.QdrantResident = 1200 }, "aaaad"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := articles
			c.edit(&cl)
			got := ""
			for _, v := range ClusterVerdicts(cl) {
				got += map[bool]string{true: "a", false: "d"}[v.Agrees]
			}
			if got != c.want {
				t.Errorf("verdicts %s, want %s: %v", got, c.want, ClusterVerdicts(cl))
			}
		})
	}
}
