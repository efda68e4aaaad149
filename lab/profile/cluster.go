package profile

import (
	"fmt"
	"strings"

	"github.com/veclab/veclab/engine"
)

// Replication is how a collection is split over a cluster, in the words
// of the store's own settings: Shards is Elasticsearch's
// index.number_of_shards and Qdrant's shard_number; Replicas is
// Elasticsearch's index.number_of_replicas (copies besides the primary)
// and Qdrant's replication_factor (copies in all). The same number means
// one copy more in Elasticsearch than in Qdrant: the trap Elastic's reply
// and its DiskBBQ post spell out ("replicas: 1 … is exactly what Qdrant's
// RF=2 does").
type Replication struct {
	Shards   int
	Replicas int
}

// DefaultReplication is the store's layout when a collection is created
// without one on a cluster of nodes: Elasticsearch 7.0+ creates one shard
// with one replica (index.number_of_shards 1, index.number_of_replicas 1);
// Qdrant one shard per peer (qdrant/qdrant lib/storage, the table of
// content's suggest_shard_distribution: default_shard_number() 1 × the
// number of peers) with replication_factor 1. pgvector and
// Redis (Community) keep one copy on one server.
func DefaultReplication(k Kind, nodes int) Replication {
	switch k {
	case Elasticsearch:
		return Replication{Shards: 1, Replicas: 1}
	case Qdrant:
		return Replication{Shards: max(nodes, 1), Replicas: 1}
	}
	return Replication{Shards: 1, Replicas: 0}
}

// Copy is one copy of a shard on a node.
type Copy struct {
	Shard   int
	Primary bool // Elasticsearch's primary; Qdrant's replicas are peers, none is marked
}

// Layout is a collection's shard copies placed on a cluster's nodes by the
// store's allocation rule ([Place]).
type Layout struct {
	Kind        Kind
	Replication Replication
	Nodes       [][]Copy // the copies each node holds, node by node
	// Missing counts the copies the settings ask for that the cluster has
	// no node for: Elasticsearch leaves them unassigned (a yellow
	// cluster), Qdrant does not create them.
	Missing int
}

// Place places the shard copies rep asks for on nodes the way store k
// allocates them, each node at most one copy of a shard:
//
//   - Elasticsearch: the primaries first, then each round of replicas,
//     every copy on the node holding the fewest copies that does not
//     already hold a copy of the same shard (SameShardAllocationDecider);
//     a copy no node can take stays unassigned. Then copies move from the
//     fullest node to the emptiest until their counts differ by at most
//     one (BalancedShardsAllocator's balance step, whose
//     cluster.routing.allocation.balance.threshold is 1.0), each move
//     again to a node without a copy of that shard.
//   - Qdrant: for each shard in turn, min(replication_factor, peers) of
//     the peers holding the fewest shards (ShardDistributionProposal::new,
//     qdrant/qdrant lib/storage/src/content_manager/shard_distribution.rs:
//     "There should not be more than 1 replica per peer"); Qdrant breaks
//     ties between equally loaded peers at random, the lab by node order.
//
// Only Elasticsearch and Qdrant shard a collection; a shard count or a
// replica count below their minimum, or fewer than one node, is an error.
func Place(k Kind, rep Replication, nodes int) (Layout, error) {
	l := Layout{Kind: k, Replication: rep}
	if k != Elasticsearch && k != Qdrant {
		return l, fmt.Errorf("profile: %v does not shard a collection over nodes: %w", k, engine.ErrInvalidArgument)
	}
	if nodes < 1 || rep.Shards < 1 {
		return l, fmt.Errorf("profile: %d shards on %d nodes: both must be at least 1: %w", rep.Shards, nodes, engine.ErrInvalidArgument)
	}
	if minRep := map[Kind]int{Elasticsearch: 0, Qdrant: 1}[k]; rep.Replicas < minRep {
		return l, fmt.Errorf("profile: %v's %s must be at least %d, got %d: %w", k, rep.replicasName(k), minRep, rep.Replicas, engine.ErrInvalidArgument)
	}
	l.Nodes = make([][]Copy, nodes)
	holds := func(n, shard int) bool {
		for _, c := range l.Nodes[n] {
			if c.Shard == shard {
				return true
			}
		}
		return false
	}
	// least returns the node with the fewest copies that holds no copy
	// of shard, -1 when every node holds one.
	least := func(shard int) int {
		best := -1
		for n := range l.Nodes {
			if !holds(n, shard) && (best < 0 || len(l.Nodes[n]) < len(l.Nodes[best])) {
				best = n
			}
		}
		return best
	}
	copies := rep.Copies(k)
	switch k {
	case Elasticsearch:
		for round := 0; round < copies; round++ {
			for s := 0; s < rep.Shards; s++ {
				n := least(s)
				if n < 0 {
					l.Missing++
					continue
				}
				l.Nodes[n] = append(l.Nodes[n], Copy{Shard: s, Primary: round == 0})
			}
		}
		l.rebalance(holds)
	case Qdrant:
		for s := 0; s < rep.Shards; s++ {
			for c := 0; c < copies; c++ {
				n := least(s)
				if n < 0 {
					l.Missing++
					continue
				}
				l.Nodes[n] = append(l.Nodes[n], Copy{Shard: s})
			}
		}
	}
	return l, nil
}

// rebalance moves copies from the fullest node to the emptiest while
// their counts differ by more than one, the last copy of the fullest that
// the emptiest does not hold (holds(node, shard)); it stops when no such
// copy exists.
func (l *Layout) rebalance(holds func(n, shard int) bool) {
	for {
		hi, lo := 0, 0
		for n := range l.Nodes {
			if len(l.Nodes[n]) > len(l.Nodes[hi]) {
				hi = n
			}
			if len(l.Nodes[n]) < len(l.Nodes[lo]) {
				lo = n
			}
		}
		if len(l.Nodes[hi]) <= len(l.Nodes[lo])+1 {
			return
		}
		moved := false
		for i := len(l.Nodes[hi]) - 1; i >= 0 && !moved; i-- {
			c := l.Nodes[hi][i]
			if holds(lo, c.Shard) {
				continue
			}
			l.Nodes[hi] = append(l.Nodes[hi][:i], l.Nodes[hi][i+1:]...)
			l.Nodes[lo] = append(l.Nodes[lo], c)
			moved = true
		}
		if !moved {
			return
		}
	}
}

// Copies returns the copies of each shard the settings ask for: 1 +
// number_of_replicas in Elasticsearch, replication_factor in Qdrant.
func (r Replication) Copies(k Kind) int {
	if k == Elasticsearch {
		return 1 + r.Replicas
	}
	return r.Replicas
}

// replicasName is the setting Replicas stands for in store k.
func (r Replication) replicasName(k Kind) string {
	if k == Elasticsearch {
		return "number_of_replicas"
	}
	return "replication_factor"
}

// Describe prints the settings in the store's words, e.g.
// "number_of_shards 3, number_of_replicas 1".
func (r Replication) Describe(k Kind) string {
	if k == Elasticsearch {
		return fmt.Sprintf("number_of_shards %d, number_of_replicas %d", r.Shards, r.Replicas)
	}
	return fmt.Sprintf("shard_number %d, replication_factor %d", r.Shards, r.Replicas)
}

// ShardCopies counts, from the placed layout, the copies each shard has
// on the nodes (index: shard).
func (l Layout) ShardCopies() []int {
	out := make([]int, l.Replication.Shards)
	for _, node := range l.Nodes {
		for _, c := range node {
			out[c.Shard]++
		}
	}
	return out
}

// Placed returns the shard copies the layout holds over all its nodes.
func (l Layout) Placed() int {
	n := 0
	for _, node := range l.Nodes {
		n += len(node)
	}
	return n
}

// Shared reports whether some node holds two copies of one shard (never,
// by either store's rule: a copy there would not survive the node).
func (l Layout) Shared() bool {
	for _, node := range l.Nodes {
		seen := map[int]bool{}
		for _, c := range node {
			if seen[c.Shard] {
				return true
			}
			seen[c.Shard] = true
		}
	}
	return false
}

// NodeVectors returns the vectors each node holds when n vectors are
// split evenly over the shards: a shard's vectors once per copy of it.
// Both stores route a document to one shard by a hash of its id
// (Elasticsearch: murmur3 of _id; Qdrant: its hash ring), even over
// millions of ids; the even split leaves out their small imbalance.
func (l Layout) NodeVectors(n int) []float64 {
	out := make([]float64, len(l.Nodes))
	per := float64(n) / float64(max(l.Replication.Shards, 1))
	for i, node := range l.Nodes {
		out[i] = per * float64(len(node))
	}
	return out
}

// String prints the layout node by node, e.g. "node 0: s0* s2; node 1: …"
// (* a primary).
func (l Layout) String() string {
	var parts []string
	for i, node := range l.Nodes {
		var cs []string
		for _, c := range node {
			s := fmt.Sprintf("s%d", c.Shard)
			if c.Primary {
				s += "*"
			}
			cs = append(cs, s)
		}
		parts = append(parts, fmt.Sprintf("node %d: %s", i, strings.Join(cs, " ")))
	}
	s := strings.Join(parts, "; ")
	if l.Missing > 0 {
		s += fmt.Sprintf("; %d copies without a node", l.Missing)
	}
	return s
}
