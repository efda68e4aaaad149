package e25

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E25's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "joining during the walk returns k documents at every beam", Article: "k = 10 documents"},
	{Claim: "k passages then dedupe return fewer than k documents", Article: "< 10 documents"},
	{Claim: "at equal beam the parent walk finds more of the nearest documents than the naive plan", Article: "higher parent recall"},
	{Claim: "the workaround (k' = k × mean passages) brings back about k documents (± 0.5)", Article: "about 10 documents"},
}
