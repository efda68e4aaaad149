package table_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/table"
)

// An article's figures sit beside the lab's in a Pair of columns.
func Example() {
	t := table.New("E06 Redis EF_RUNTIME", table.Col("ef_runtime", ""))
	t.AddColumns(table.Pair("recall@10", "", 3)...)
	_ = t.AddValues("10 (default)", 0.616, 0.604)
	_ = t.AddValues(200, 1.0, 0.999)
	t.Note("lab figures are illustrative in this example")
	fmt.Print(t)
	// Output:
	// E06 Redis EF_RUNTIME
	// ef_runtime    recall@10 (article)  recall@10 (lab)
	// ------------  -------------------  ---------------
	// 10 (default)                0.616            0.604
	// 200                         1.000            0.999
	//   * recall@10 = |returned top 10 ∩ exact top 10| / 10, the mean over the queries (a filter matching fewer than 10 documents: over those)
	//   * lab figures are illustrative in this example
}
