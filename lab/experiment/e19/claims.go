package e19

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E19's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "base64 parses faster than float arrays", Article: "≥ 10×"},
	{Claim: "base64 raises HNSW ingest throughput", Article: "20 % (direction > 0 %)"},
	{Claim: "base64 raises HNSW ingest throughput by about 20 %", Article: "20 % (± 15 %) (direction > 0 %)"},
	{Claim: "base64 raises DiskBBQ (IVF) ingest throughput", Article: "100 % (direction > 0 %)"},
	{Claim: "base64 raises DiskBBQ (IVF) ingest throughput by about 100 %", Article: "100 % (± 50 %) (direction > 0 %)"},
	{Claim: "the ingest gain is larger for IVF than for HNSW", Article: "+100 % vs +20 %"},
}
