package e16

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E16's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "fewer segments: lower recall at the same ef", Article: "-0.0214 (direction < 0)"},
	{Claim: "fewer segments: recall falls by about the article's 0.0214 at the same ef (128 → 66 segments)", Article: "-0.0214 (± 0.0107) (direction < 0)"},
	{Claim: "fewer segments: higher QPS at the same ef", Article: "1.49× (direction > 1.13×)"},
	{Claim: "fewer segments: QPS rises by about the article's 1.49× at the same ef (128 → 66 segments)", Article: "1.49× (± 0.244×) (direction > 1×)"},
	{Claim: "fewer segments: fewer distance computations at the same ef", Article: "(the mechanism)"},
}
