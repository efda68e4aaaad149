package e20

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E20's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "concurrent segment search: QPS over sequential", Article: "2.11× (± 0.6×)"},
	{Claim: "concurrent search answers as sequential search does", Article: "same results"},
	{Claim: "the shared bound computes fewer distances at the same ef", Article: "(the mechanism)"},
	{Claim: "the shared bound computes fewer distances at equal recall (± 0.01)", Article: "60 % (direction > 0 %)"},
	{Claim: "the shared bound cuts the work by up to 60 % at comparable recall", Article: "60 % (± 25 %) (direction > 0 %)"},
}
