package e24

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E24's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "1 bit per dimension compresses the vectors 32×", Article: "32× (± 1×)"},
	{Claim: "rescoring an oversampled set restores 1-bit recall (Elasticsearch's default ×3)", Article: "raw recall (± 0.02)"},
	{Claim: "a 4-bit query (bbq) beats a 1-bit query without rescoring", Article: "bbq > osq1x1"},
}
