package e14

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E14's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "4-bit codes per vector at 768 dims (± 10 %)", Article: "384 B (± 38.4 B)"},
	{Claim: "resident per vector, 4-bit codes + graph links, at 768 dims (± 10 %)", Article: "520 B (± 52 B)"},
	{Claim: "the resident index of 21 M vectors fits 3.4–3.9 GB per node on 3 nodes", Article: "3.64 GB (measured 3.4–3.9)"},
	{Claim: "building the HNSW graph at ef_construct 256 on a 2-vCPU node (21 M × 768 on 3 nodes) takes about 1.6 h", Article: "1.6 h (×/÷ 2)"},
	{Claim: "replicas: 1 in Elasticsearch and RF=2 in Qdrant keep the same two copies of each shard", Article: "2 = 2"},
	{Claim: "in the reply's round, replicas: 0 and RF=1 keep one copy each", Article: "1 = 1"},
	{Claim: "three shards with two copies each on three nodes in both engines", Article: "3 shards × 2 copies, 2 per node"},
	{Claim: "Elasticsearch's 2 GB JVM heap (25 % of an 8 GB node) is a label, not its bytes in use", Article: "2 GB heap; the vectors live off it"},
	{Claim: "on an 8 GB node both engines live inside the same envelope", Article: "≤ 8 GB per node each"},
}
