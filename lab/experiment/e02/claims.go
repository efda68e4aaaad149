package e02

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E02's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "pgvector on its defaults: recall@10 is 0.951", Article: "0.951 (± 0.05)"},
	{Claim: "redis on its defaults: recall@10 is 0.616", Article: "0.616 (± 0.05)"},
	{Claim: "qdrant on its defaults: recall@10 is 0.999", Article: "0.999 (± 0.05)"},
	{Claim: "elasticsearch on its defaults: recall@10 is 0.491", Article: "0.491 (± 0.05)"},
	{Claim: "the two outliers are the article's: elasticsearch lowest, then redis", Article: "elasticsearch, then redis"},
	{Claim: "every store returns 10 hits", Article: "10 hits"},
	{Claim: "redis answers fastest of the four on its defaults (p50)", Article: "0.7 ms against 2.8–9.5"},
	{Claim: "pgvector's p50 over redis's on the defaults", Article: "13.6× (×/÷ 2)"},
	{Claim: "pgvector's p95 over redis's on the defaults", Article: "14.9× (×/÷ 2)"},
	{Claim: "qdrant's p50 over redis's on the defaults", Article: "4× (×/÷ 2)"},
	{Claim: "qdrant's p95 over redis's on the defaults", Article: "6.18× (×/÷ 2)"},
	{Claim: "elasticsearch's p50 over redis's on the defaults", Article: "7.71× (×/÷ 2)"},
	{Claim: "elasticsearch's p95 over redis's on the defaults", Article: "18.6× (×/÷ 2)"},
}
