package e05

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E05's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "15 (num_candidates): recall@10 is 0.491", Article: "0.491 (± 0.05)"},
	{Claim: "50 (num_candidates): recall@10 is 0.489", Article: "0.489 (± 0.05)"},
	{Claim: "100 (num_candidates): recall@10 is 0.490", Article: "0.49 (± 0.05)"},
	{Claim: "500 (num_candidates): recall@10 is 0.490", Article: "0.49 (± 0.05)"},
	{Claim: "recall is flat over num_candidates 15…500: its spread (§ Elasticsearch: the default mapping is quantised, and on this data it costs half the recall)", Article: "≤ 0.002 (± 0.05)"},
	{Claim: "(lab) raising the rescoring oversample from the default 3 raises recall by more than 0.2", Article: "> 0.2 from ×3 to ×50"},
	{Claim: "(lab) at oversample 3 the graph walk is within 0.05 of the scan of all codes (the codes are the limit)", Article: "≤ 0.05"},
}
