package e18

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E18's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "parallel ingest leaves more segments than one writer", Article: "more segments"},
	{Claim: "parallel ingest is faster than one writer (HNSW)", Article: "fast vs slow (> 1.13×)"},
	{Claim: "fewer segments answer faster at the same ef (HNSW, one writer's segments over the parallel writers')", Article: "faster (> 1.13×)"},
	{Claim: "IVF builds faster than HNSW (one writer)", Article: "cheap to build (> 1.13×)"},
	{Claim: "IVF's query work moves less with the segment count than HNSW's", Article: "less sensitive"},
	{Claim: "one writer's few segments: IVF (ids isolated) and HNSW are on par in QPS on the search itself", Article: "0.84–1.06× (56 against 53–67 QPS)"},
}
