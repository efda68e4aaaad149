package e19

import (
	"strings"

	"github.com/veclab/veclab/lab/experiment"
)

// verdictWords returns "agrees"/"differs" per verdict, for compact
// comparisons.
func verdictWords(vs experiment.Verdicts) string {
	var w []string
	for _, v := range vs {
		w = append(w, v.Word())
	}
	return strings.Join(w, " ")
}
