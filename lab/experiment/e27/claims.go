package e27

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E27's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "IVF's lists on disk cost a handful of reads per query (a tenth of the lists, plus one)", Article: "≤ 1.5 reads/q"},
	{Claim: "warm, the lists on disk cost IVF no device read", Article: "0 reads/q"},
	{Claim: "cold, every probed list is a device read", Article: "≥ 1 reads/q (± 0.5 reads/q)"},
	{Claim: "the cache state does not change what either design finds", Article: "same recall warm and cold"},
	{Claim: "the device model does not overprice reads: IVF's simulated device ms ≥ its formula's", Article: "≥ 31 ms (± 1.55 ms)"},
	{Claim: "a disk-resident HNSW (modelled) costs more device ms per query than IVF, even per-hop parallel", Article: "(lab model)"},
	{Claim: "the modelled HNSW device ms grow with ef; IVF's do not depend on it", Article: "(lab model)"},
}
