package e14

import (
	"fmt"
	"slices"

	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// The rounds of the two articles, in each store's own settings: the
// DiskBBQ post's ("number_of_shards: 3 and number_of_replicas: 1 … shard_number:
// 3 and replication_factor: 2") and Elastic's reply's ("replicas: 0",
// "RF=1", three shards on the same three nodes).
var (
	roundPost  = [2]profile.Replication{{Shards: 3, Replicas: 1}, {Shards: 3, Replicas: 2}}
	roundReply = [2]profile.Replication{{Shards: 3, Replicas: 0}, {Shards: 3, Replicas: 1}}
	clusterOf  = [2]profile.Kind{profile.Elasticsearch, profile.Qdrant}
)

// The reply's memory accounting: "On these 8 GB nodes we give the JVM heap
// 2 GB, 25% of node RAM"; the benchmark's 10,000 queries rescore 100
// candidates each.
const (
	nodeRAMGB     = 8
	heapGB        = 2
	benchQueries  = 10_000
	benchRescored = 100
)

// Cluster is the layout of both rounds in both stores, placed by each
// store's allocation rule (profile.Place) on the articles' three nodes,
// and the bytes per vector the lab measured for what each store keeps in
// use per node in the reply's round.
type Cluster struct {
	Post, Reply [2]profile.Layout // Elasticsearch, Qdrant
	// Defaults is each store's layout when the collection is created
	// without one (profile.DefaultReplication) on the same nodes.
	Defaults [2]profile.Layout
	// QdrantResident is the bytes per vector Qdrant keeps resident at
	// 768 dims: its 4-bit codes and graph links ([Budget]'s total).
	QdrantResident float64
	// ESCodes is the bytes per vector of bbq_disk's 2-bit codes at 768
	// dims (the lab's OSQ 2-bit codes with their corrections), which the
	// IVF scan reads through the page cache.
	ESCodes float64
	// BF16, F32 are the bytes of one 768-dim original as Elasticsearch
	// (bfloat16) and Qdrant (float32) store it, from the encoder.
	BF16, F32 float64
}

// MeasureCluster places both rounds' shard copies with each store's rule
// and measures the per-vector bytes the memory comparison needs: Qdrant's
// resident bytes from the 4-bit budget t ([Budget]), bbq_disk's 2-bit
// codes from the lab's OSQ quantizer trained on the data set, the
// originals from their encodings at 768 dims.
func MeasureCluster(env *experiment.Env, t *table.Table) (Cluster, error) {
	var c Cluster
	for i, k := range clusterOf {
		var err error
		if c.Post[i], err = profile.Place(k, roundPost[i], e14Nodes); err != nil {
			return c, err
		}
		if c.Reply[i], err = profile.Place(k, roundReply[i], e14Nodes); err != nil {
			return c, err
		}
		if c.Defaults[i], err = profile.Place(k, profile.DefaultReplication(k, e14Nodes), e14Nodes); err != nil {
			return c, err
		}
	}
	c.QdrantResident = tableFloat(t, "total resident", fmt.Sprintf("bytes/vector at %d dims (lab)", e14ArtDim))
	osq, err := experiment.TrainQuantizer(env, "osq2")
	if err != nil {
		return c, err
	}
	c.ESCodes = osq.BytesPerVector() - float64(2*env.Scale.Dim)/8 + float64(2*e14ArtDim)/8
	v := make([]float32, e14ArtDim)
	c.BF16 = float64(len(vec.EncodeBFloat16(nil, v)))
	c.F32 = float64(4 * len(v))
	return c, nil
}

// inUse returns the bytes per node each store keeps in use for its
// vectors in the reply's round, in GB: Elasticsearch its 2-bit codes
// (the IVF scan reads them through the page cache) and the originals its
// rescoring touches (100 candidates × 10,000 queries in bfloat16, at most
// the node's own); Qdrant its resident codes and links and the float32
// originals its rescoring touches.
func (c Cluster) inUse() (es, qd float64) {
	active := func(l profile.Layout, per float64) float64 {
		node := slices.Max(l.NodeVectors(e14Vectors))
		return min(benchRescored*benchQueries/float64(len(l.Nodes)), node) * per
	}
	esNode := slices.Max(c.Reply[0].NodeVectors(e14Vectors))
	qdNode := slices.Max(c.Reply[1].NodeVectors(e14Vectors))
	es = (esNode*c.ESCodes + active(c.Reply[0], c.BF16)) / 1e9
	qd = (qdNode*c.QdrantResident + active(c.Reply[1], c.F32)) / 1e9
	return es, qd
}

// ClusterTable tabulates the layouts (settings, copies per shard counted
// on the nodes, the layout) and the reply's round's bytes in use per node.
func ClusterTable(c Cluster) *table.Table {
	t := table.New(fmt.Sprintf("E14 shard copies on %d nodes, placed by each store's rule (lab)", e14Nodes),
		table.Col("round", ""), table.Col("store", ""), table.Col("settings", ""),
		table.Column{Header: "copies per shard", Source: table.Lab, Prec: -1},
		table.Column{Header: "vectors per node", Unit: "M", Source: table.Lab, Prec: 1},
		table.Col("layout (* primary)", ""))
	for _, r := range []struct {
		name string
		ls   [2]profile.Layout
	}{{"DiskBBQ post", c.Post}, {"Elastic's reply", c.Reply}, {"defaults (lab)", c.Defaults}} {
		for _, l := range r.ls {
			_ = t.AddValues(r.name, l.Kind.String(), l.Replication.Describe(l.Kind), float64(slices.Min(l.ShardCopies())),
				slices.Max(l.NodeVectors(e14Vectors))/1e6, l.String())
		}
	}
	es, qd := c.inUse()
	t.Note("copies per shard: counted on the placed nodes (the fewest any shard has); vectors per node: %d M split evenly over the shards, once per copy (the fullest node)", e14Vectors/1_000_000)
	t.Note("defaults: a collection created with no layout (Elasticsearch 7.0+: 1 shard, 1 replica; Qdrant: a shard per peer, replication_factor 1): on their defaults Elasticsearch keeps two copies and Qdrant one, so the same data costs Elasticsearch twice the bytes over the cluster unless the settings are matched, as both articles did")
	t.Note("reply's round, vector bytes in use per node (lab): Elasticsearch %.2f GB off the heap (2-bit codes %.0f B per vector held, originals touched in bfloat16 %.0f B each), beside its %d GB heap; Qdrant %.2f GB (codes + links %.0f B per vector held, originals touched in float32 %.0f B each); originals touched: 100 candidates × 10,000 queries over the nodes, at most a node's own", es, c.ESCodes, c.BF16, heapGB, qd, c.QdrantResident, c.F32)
	return t
}

// heapShare is the rule, set before any run, for "a heap size is a label,
// not the bytes in use": the label would stand for the store's memory only
// if the vector bytes it leaves out, in use off the heap, were under a
// quarter of it.
const heapShare = 0.25

// ClusterVerdicts judges the articles' layout and memory claims from the
// placed layouts (copies counted on the nodes) and the bytes in use per
// node (Cluster.inUse).
func ClusterVerdicts(c Cluster) experiment.Verdicts {
	copies := func(l profile.Layout) (lo, hi int) { s := l.ShardCopies(); return slices.Min(s), slices.Max(s) }
	same := func(ls [2]profile.Layout, want int) experiment.Verdict {
		el, eh := copies(ls[0])
		ql, qh := copies(ls[1])
		return experiment.Verdict{Agrees: el == want && eh == want && ql == want && qh == want,
			Lab: fmt.Sprintf("%d = %d", eh, qh)}
	}
	reason := func(ls [2]profile.Layout) string {
		return fmt.Sprintf("copies counted on the nodes: Elasticsearch (%s) %s; Qdrant (%s) %s",
			ls[0].Replication.Describe(ls[0].Kind), ls[0], ls[1].Replication.Describe(ls[1].Kind), ls[1])
	}
	post, reply := same(c.Post, 2), same(c.Reply, 1)
	twoOnThree := func(l profile.Layout) bool {
		lo, hi := copies(l)
		per := true
		for _, n := range l.Nodes {
			per = per && len(n) == 2
		}
		return l.Replication.Shards == 3 && lo == 2 && hi == 2 && per && !l.Shared() && l.Missing == 0
	}
	three := twoOnThree(c.Post[0]) && twoOnThree(c.Post[1])
	es, qd := c.inUse()
	label := experiment.Holds("E14", "Elasticsearch's 2 GB JVM heap (25 % of an 8 GB node) is a label, not its bytes in use", "2 GB heap; the vectors live off it",
		fmt.Sprintf("%.2f GB of vector bytes in use off the heap", es), es >= heapShare*heapGB,
		fmt.Sprintf("rule: the heap stands for the memory in use only if what it leaves out is under %.0f %% of it (%.1f GB); per node, %.1f M vectors' 2-bit codes (%.0f B each, read by the IVF scan through the page cache) and the originals 10,000 queries × 100 candidates touch in bfloat16 (%.0f B each) come to %.2f GB, none of it on the JVM heap (Lucene maps its files); the JVM's own bytes beyond the heap are not modelled",
			100*heapShare, heapShare*heapGB, slices.Max(c.Reply[0].NodeVectors(e14Vectors))/1e6, c.ESCodes, c.BF16, es))
	envelope := experiment.Holds("E14", "on an 8 GB node both engines live inside the same envelope", "≤ 8 GB per node each",
		fmt.Sprintf("Elasticsearch %.2f GB (heap %d + %.2f), Qdrant %.2f GB", heapGB+es, heapGB, es, qd), heapGB+es <= nodeRAMGB && qd <= nodeRAMGB,
		fmt.Sprintf("like for like, what each keeps in use per node (%.1f M and %.1f M vectors per node as placed): Elasticsearch its 2 GB heap (its ceiling) and its off-heap vector bytes; Qdrant its resident 4-bit codes and links (%.0f B each) and the float32 originals its rescoring touches (%.0f B each); neither process's runtime is modelled",
			slices.Max(c.Reply[0].NodeVectors(e14Vectors))/1e6, slices.Max(c.Reply[1].NodeVectors(e14Vectors))/1e6, c.QdrantResident, c.F32))
	return experiment.Verdicts{
		experiment.Holds("E14", "replicas: 1 in Elasticsearch and RF=2 in Qdrant keep the same two copies of each shard", "2 = 2", post.Lab, post.Agrees,
			reason(c.Post)+"; the same number, 1, in both settings keeps 2 copies in Elasticsearch and 1 in Qdrant"),
		experiment.Holds("E14", "in the reply's round, replicas: 0 and RF=1 keep one copy each", "1 = 1", reply.Lab, reply.Agrees, reason(c.Reply)),
		experiment.Holds("E14", "three shards with two copies each on three nodes in both engines", "3 shards × 2 copies, 2 per node",
			fmt.Sprintf("Elasticsearch %s; Qdrant %s", c.Post[0], c.Post[1]), three,
			"each store's placement of number_of_shards 3 / number_of_replicas 1 and shard_number 3 / replication_factor 2: every shard's copies counted, every node's copies counted, no node holding two copies of one shard"),
		label, envelope,
	}
}
