package e03

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E03's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "pgvector: filtered recall@10 is 0.167 (§ Adding a metadata filter)", Article: "0.167 (± 0.05)"},
	{Claim: "pgvector: a filtered query returns 1.8 rows on average (§ Adding a metadata filter)", Article: "1.8 rows (± 0.9 rows)"},
	{Claim: "redis: filtered recall@10 is 1.000 (§ Adding a metadata filter)", Article: "1 (± 0.05)"},
	{Claim: "redis: a filtered query returns 10.0 rows on average (§ Adding a metadata filter)", Article: "10 rows"},
	{Claim: "qdrant: filtered recall@10 is 1.000 (§ Adding a metadata filter)", Article: "1 (± 0.05)"},
	{Claim: "qdrant: a filtered query returns 10.0 rows on average (§ Adding a metadata filter)", Article: "10 rows"},
	{Claim: "elasticsearch: filtered recall@10 is 0.544 (§ Adding a metadata filter)", Article: "0.544 (± 0.05)"},
	{Claim: "elasticsearch: a filtered query returns 10.0 rows on average (§ Adding a metadata filter)", Article: "10 rows"},
	// The filtered table's p50 / p95, each store over Redis's: ×/÷ 2 (E02's
	// latency.Factor rule) cut at 1× (every store is slower than Redis in
	// the article's table), set before the first run (2026-12-07).
	{Claim: "redis answers the filtered query fastest of the four on its defaults (p50)", Article: "1.6 ms against 3.1–27.6"},
	{Claim: "pgvector's filtered p50 over redis's on the defaults", Article: "6.25× (×/÷ 2) (direction > 1×)"},
	{Claim: "pgvector's filtered p95 over redis's on the defaults", Article: "6.54× (×/÷ 2) (direction > 1×)"},
	{Claim: "qdrant's filtered p50 over redis's on the defaults", Article: "17.2× (×/÷ 2) (direction > 1×)"},
	{Claim: "qdrant's filtered p95 over redis's on the defaults", Article: "16.2× (×/÷ 2) (direction > 1×)"},
	{Claim: "elasticsearch's filtered p50 over redis's on the defaults", Article: "1.94× (×/÷ 2) (direction > 1×)"},
	{Claim: "elasticsearch's filtered p95 over redis's on the defaults", Article: "3.21× (×/÷ 2) (direction > 1×)"},
}
