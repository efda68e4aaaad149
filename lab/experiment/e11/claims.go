package e11

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E11's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "raw vectors: 4·dim bytes per document (46 MB / 30,000)", Article: "1533 B/doc (± 30.7 B/doc)"},
	{Claim: "pgvector's table (heap + TOAST) per document (± 25 %)", Article: "1967 B/doc (± 492 B/doc)"},
	{Claim: "pgvector's HNSW index per document (± 25 %)", Article: "1967 B/doc (± 492 B/doc)"},
	{Claim: "pgvector's table and index are about one size, each a full vector copy", Article: "59 MB and 59 MB (ratio 1, ± 25 %)"},
	{Claim: "Redis's one document (JSON model) (± 25 %)", Article: "10600 B/doc (± 2650 B/doc)"},
	{Claim: "Redis's vector index per document (± 25 %)", Article: "1847 B/doc (± 462 B/doc)"},
	{Claim: "Redis holds the most in RAM per document, several times the raw vectors", Article: "434 MB, 9.4× the raw 46 MB"},
	{Claim: "Redis's used_memory per document (± 25 %)", Article: "14467 B/doc (± 3617 B/doc)"},
	{Claim: "Redis's used_memory beyond its documents and vector index per document (± 25 %)", Article: "2020 B/doc (± 505 B/doc)"},
	{Claim: "Qdrant's storage directory per document (± 25 %)", Article: "4800 B/doc (± 1200 B/doc)"},
	{Claim: "Elasticsearch's store per document (± 25 %)", Article: "1810 B/doc (± 452 B/doc)"},
	{Claim: "pgvector's process memory (PSS) after loading and querying (± 25 %)", Article: "153 MB (± 38.2 MB)"},
	{Claim: "redis's process memory (PSS) after loading and querying (± 25 %)", Article: "422 MB (± 106 MB)"},
	{Claim: "qdrant's process memory (PSS) after loading and querying (± 25 %)", Article: "172 MB (± 43 MB)"},
	{Claim: "elasticsearch's process memory (PSS) after loading and querying (± 25 %)", Article: "1550 MB (± 388 MB)"},
}
