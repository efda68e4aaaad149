package e15

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E15's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "warm page cache: no device read per query, sequential or concurrent (the article's 0 IOPS)", Article: "0 reads/q"},
	{Claim: "warm page cache: concurrent reads are faster than sequential (the direction of the article's 31.6 → 35.8 QPS)", Article: "1.13× (direction > 1×)"},
	{Claim: "warm page cache: concurrent reads change QPS little (concurrent / sequential QPS)", Article: "1.13× (± 0.13×) (direction > 1×)"},
	{Claim: "cold page cache (lab's addition): concurrent reads are faster than sequential", Article: "faster (> 1.13×)"},
	{Claim: "simulated device (lab's addition): concurrent reads are faster than sequential", Article: "faster (> 1.13×)"},
}
