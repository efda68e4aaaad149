package e26

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E26's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "at oversample 1, a design reaches the article's recall@100 band (0.93–0.97)", Article: "≥ 0.93"},
	{Claim: "oversample 1: IVF reaches a higher recall@100 than HNSW with the same rescoring reads", Article: "(the lab's finding; the article pairs at equal recall)"},
	{Claim: "oversample 1: widening the HNSW beam buys little recall@100", Article: "≤ 0.05"},
	{Claim: "oversample 1 on gp3 (simulated): IVF up to 7× the QPS of HNSW", Article: "7× (± 2×)"},
	{Claim: "oversample 3 (lab's addition): IVF reaches the article's recall@100 band", Article: "≥ 0.93"},
}
