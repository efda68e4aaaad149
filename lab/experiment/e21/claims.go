package e21

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E21's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "SIMD kernels compute dot products faster than scalar code", Article: "faster at every dimension"},
	{Claim: "SIMD kernels speed indexing up from about 900 to about 1,300 docs/s", Article: "≥ 1.44× (± 0.2×)"},
}
