package e07

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E07's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "40 off: filtered recall@10 is 0.167 (§ pgvector: the index finds 40 candidates)", Article: "0.167 (± 0.05)"},
	{Claim: "40 off: a filtered query returns 1.8 rows on average (§ pgvector: the index finds 40 candidates)", Article: "1.8 rows (± 0.9 rows)"},
	{Claim: "200 off: filtered recall@10 is 0.198 (§ pgvector: the index finds 40 candidates)", Article: "0.198 (± 0.05)"},
	{Claim: "200 off: a filtered query returns 2.0 rows on average (§ pgvector: the index finds 40 candidates)", Article: "2 rows (± 1 rows)"},
	{Claim: "1000 off: filtered recall@10 is 1.000 (§ pgvector: the index finds 40 candidates)", Article: "1 (± 0.05)"},
	{Claim: "1000 off: a filtered query returns 10.0 rows on average (§ pgvector: the index finds 40 candidates)", Article: "10 rows"},
	// Seed-sensitive, stated rather than widened: at article scale the lab
	// reads 0.668 / 0.638 / 0.603 on seeds 1 / 2 / 3 (veclab reproduce
	// -seed N, 2026-12-07), so this verdict differs on seed 1 by 0.007 and
	// agrees on seeds 2 and 3: the 100-query sample decides it, not the
	// emulation (the real pgvector reads 0.669 on seed 1).
	{Claim: "40 relaxed_order: filtered recall@10 is 0.611 (§ pgvector: the index finds 40 candidates)", Article: "0.611 (± 0.05)"},
	{Claim: "40 relaxed_order: a filtered query returns 10.0 rows on average (§ pgvector: the index finds 40 candidates)", Article: "10 rows"},
	{Claim: "40 strict_order: filtered recall@10 is 0.281 (§ pgvector: the index finds 40 candidates)", Article: "0.281 (± 0.05)"},
	{Claim: "40 strict_order: a filtered query returns 10.0 rows on average (§ pgvector: the index finds 40 candidates)", Article: "10 rows"},
	{Claim: "strict_order's recall is below relaxed_order's (§ pgvector: the index finds 40 candidates)", Article: "0.281 < 0.611"},
	// The p50 column, each setting over the default's (40, off): ×/÷ 2
	// (E02's latency.Factor rule) cut at 1× (every fix costs more than the
	// default in the article's table), set before the first run
	// (2026-12-07).
	{Claim: "200 off: p50 over the default's (40 off) (§ pgvector: the index finds 40 candidates)", Article: "1.42× (×/÷ 2) (direction > 1×)"},
	{Claim: "1000 off: p50 over the default's (40 off) (§ pgvector: the index finds 40 candidates)", Article: "23.5× (×/÷ 2) (direction > 1×)"},
	{Claim: "40 relaxed_order: p50 over the default's (40 off) (§ pgvector: the index finds 40 candidates)", Article: "6.42× (×/÷ 2) (direction > 1×)"},
	{Claim: "40 strict_order: p50 over the default's (40 off) (§ pgvector: the index finds 40 candidates)", Article: "8.08× (×/÷ 2) (direction > 1×)"},
}
