package e10

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E10's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "bbq_hnsw (index type): recall@10 is 0.491", Article: "0.491 (± 0.05)"},
	{Claim: "int8_hnsw (index type): recall@10 is 0.952", Article: "0.952 (± 0.05)"},
	{Claim: "hnsw (index type): recall@10 is 0.995", Article: "0.995 (± 0.05)"},
	{Claim: "bbq_hnsw (index type): filtered recall@10 is 0.544", Article: "0.544 (± 0.05)"},
	{Claim: "int8_hnsw (index type): filtered recall@10 is 0.974", Article: "0.974 (± 0.05)"},
	{Claim: "hnsw (index type): filtered recall@10 is 1.000", Article: "1 (± 0.05)"},
	{Claim: "bbq_hnsw has the lowest recall of the three types (§ Elasticsearch: the default mapping is quantised, and on this data it costs half the recall)", Article: "0.491 < 0.952, 0.995"},
	{Claim: "bbq_hnsw's store is 1.03× hnsw's (54.4 against 52.6 MB)", Article: "1.03× (± 0.1×)"},
	{Claim: "int8_hnsw's store is 1.22× hnsw's (64.1 against 52.6 MB)", Article: "1.22× (± 0.1×)"},
	{Claim: "bbq_hnsw's recall@10 moves between builds by about 0.03 (0.47–0.50)", Article: "0.03 (×/÷ 3)"},
	{Claim: "the gap from bbq_hnsw to int8_hnsw is far larger than the wobble between builds", Article: "≥ 5×"},
}
