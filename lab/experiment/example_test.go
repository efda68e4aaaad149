package experiment_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
)

// The registered experiments, as `veclab reproduce -list` prints them.
func ExampleSelect() {
	exps, err := experiment.Select("E06,E02")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range exps {
		f, _ := e.Figure(map[string]string{"E02": "redis", "E06": "50"}[e.ID], "recall@10")
		fmt.Printf("%s %s (article: %v)\n", e.ID, e.Title, f)
	}
	// Output:
	// E02 unfiltered recall@10 of four stores on their defaults (article: redis recall@10 = 0.616)
	// E06 Redis EF_RUNTIME: the library default (10) against 50 and 200 (article: 50 recall@10 = 0.962)
}
