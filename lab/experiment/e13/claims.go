package e13

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E13's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "bandwidth per node at 100 cluster QPS (± 25 %)", Article: "27 MB/s (± 6.75 MB/s)"},
	{Claim: "rescoring 100 candidates costs 100 reads per query", Article: "100 reads/q (± 0.5 reads/q)"},
	{Claim: "IOPS per node at 100 cluster QPS on 3 nodes (± 5 %)", Article: "3333 (± 167)"},
	{Claim: "cold cache: the reads reach the device", Article: "≥ 100 % (± 10 %)"},
	{Claim: "warm cache: no read reaches the device (the article's disk showed 0 IOPS)", Article: "0 reads/q"},
	{Claim: "the cap a 3 × 3,000 IOPS gp3 cluster puts on cold queries (± 10 %)", Article: "90 QPS (± 9 QPS)"},
	{Claim: "the cap 3 nodes of provisioned gp3 put on cold queries (± 10 %)", Article: "480 QPS (± 48 QPS)"},
	{Claim: "the cap 3 nodes of local NVMe put on cold queries (± 10 %)", Article: "3000 QPS (± 300 QPS)"},
	{Claim: "bfloat16 stores a 768-dim original in 1,536 B (float32: 3,072)", Article: "1536 B"},
	{Claim: "rescoring with bfloat16 originals keeps float32's recall (lab's reading; ± 0.01)", Article: "0 (± 0.01)"},
	{Claim: "rescore working set per node: 100 candidates × 10,000 queries × one page, on 3 nodes (± 25 %)", Article: "2.7 GB (± 0.675 GB)"},
}
