package e23

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E23's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "int4 compresses the vectors 8×", Article: "8× (± 0.5×)"},
	{Claim: "the error-correction term does not make codes-only results worse", Article: "with ≥ without (± 0.01)"},
	{Claim: "with rescoring ×3, the correction term does not make results worse", Article: "with ≥ without (± 0.01)"},
	{Claim: "int4 rescored ×3 searches \"without making results worse\" than raw", Article: "raw recall (± 0.01)"},
}
