package e04

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E04's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "every default the article read from the services is the profile's (§ HNSW in two minutes)", Article: "10 settings"},
}
