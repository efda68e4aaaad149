package e08

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E08's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "no payload index: filtered recall@10 is 1.000 (§ Qdrant: right answers, slowly, until you index the field)", Article: "1 (± 0.05)"},
	{Claim: "keyword+integer index: filtered recall@10 is 1.000 (§ Qdrant: right answers, slowly, until you index the field)", Article: "1 (± 0.05)"},
	{Claim: "the payload index makes the filtered query faster: p50 26.2 → 1.5 ms (§ Qdrant: right answers, slowly, until you index the field)", Article: "≥ 17.5× (± 12.5×)"},
	{Claim: "without a payload index the filter reads each document's stored payload (§ Qdrant: right answers, slowly, until you index the field)", Article: "the article's reading of its 27.6 ms"},
	{Claim: "a third of the documents in 2 segments stays under indexing_threshold, unindexed and searched exactly (§ Going deeper: the Qdrant indexing threshold)", Article: "indexed_vectors_count=0"},
	{Claim: "every vector of the full collection is indexed: indexed_vectors_count = points_count (§ Going deeper: the Qdrant indexing threshold)", Article: "1"},
}
