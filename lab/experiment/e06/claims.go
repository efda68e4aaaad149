package e06

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E06's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "10 (Redis EF_RUNTIME): recall@10 is 0.616", Article: "0.616 (± 0.05)"},
	{Claim: "50 (Redis EF_RUNTIME): recall@10 is 0.962", Article: "0.962 (± 0.05)"},
	{Claim: "200 (Redis EF_RUNTIME): recall@10 is 1.000", Article: "1 (± 0.05)"},
}
