package e01

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E01's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "the stores ingest in the article's order (§ Getting the data in)", Article: "qdrant > redis > elasticsearch > pgvector"},
	{Claim: "qdrant acknowledges documents faster than redis (§ Getting the data in: 17,382 against 3,158 docs/s)", Article: "17,382 / 3,158 docs/s = 5.5× (> 1×)"},
	{Claim: "qdrant ingests about 5.5× as fast as redis (§ Getting the data in)", Article: "5.5× (± 2.25×) (direction > 1×)"},
	{Claim: "pgvector: everything visible at the last ack (commit is the visibility step)", Article: "visible at commit"},
	{Claim: "redis: at the last ack its indexing queue has not caught up (§ Getting the data in: Redis drains an indexing queue)", Article: "fewer visible than acknowledged"},
	{Claim: "qdrant: all points searchable at once while the optimizer runs (plain segments are scanned exactly)", Article: "searchable at once"},
	{Claim: "elasticsearch: acknowledged documents stay invisible until the next refresh, a matter of time (§ Getting the data in)", Article: "invisible until a refresh"},
}
