package e12

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E12's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "a save on a disk below the high watermark is written", Article: "written below 90 %"},
	{Claim: "a save that starts above the 90 % high watermark is refused", Article: "refused above 90 % used"},
	{Claim: "a save whose own bytes cross the high watermark is refused mid-write", Article: "(lab) refused at the crossing"},
	{Claim: "a disk flooded before the rename refuses the rename (flood stage)", Article: "(lab) read-only above 95 %"},
	{Claim: "the refusal names the watermark at once (the article: a 1 min timeout and one WARN line)", Article: "1 min timeout, reason in the log"},
	{Claim: "nothing is lost: each path holds a whole generation that reloads with identical results", Article: "(lab) crash-safe replace"},
	{Claim: "no temporary file is left behind and no error text carries a machine path", Article: "(lab)"},
}
