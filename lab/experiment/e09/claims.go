package e09

import "github.com/veclab/veclab/lab/experiment"

// claims are the claims E09's Verdicts judge in `veclab reproduce`, each
// with the article's figure as its verdict prints it: the registry
// holds them so `veclab reproduce -list` lists them without running
// anything, and TestVerdictsRegistered fails when a run states a claim
// that is not here, or a figure other than this one.
var claims = []experiment.Claim{
	{Claim: "the filter on an undeclared field is refused with an error naming it (§ Redis: filter on a field you did not declare, and it refuses)", Article: "Not allowed filter identifier name: category"},
	{Claim: "with category and year declared the filter runs (§ Redis: filter on a field you did not declare, and it refuses)", Article: "filtered search runs"},
}
