package picture_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/picture"
)

// Notebook 00b's picture of why the oversample is the knob: where each
// code's flat scan ranks the true top 10, one panel per code, with the
// cut-offs ⌈o·10⌉ that rescoring reads up to (small scale here).
func ExampleTrueRanks() {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		panic(err)
	}
	defer env.Close()
	var rankings []*experiment.CodeRanking
	for _, name := range picture.Codes {
		q, err := experiment.TrainQuantizer(env, name)
		if err != nil {
			panic(err)
		}
		cr, err := experiment.RankCodes(env, q, 50)
		if err != nil {
			panic(err)
		}
		rankings = append(rankings, cr)
	}
	g, spreads, err := picture.TrueRanks(picture.Codes, rankings, []float64{1, 3, 10, 50}, 30)
	if err != nil {
		panic(err)
	}
	int8s, bits := spreads[0], spreads[3]
	fmt.Println(len(g.Charts), "panels;", bits.Name, "ranks the true top 10 lower than", int8s.Name+":", bits.Median > int8s.Median)
	fmt.Println(len(picture.RankTable(spreads).Rows), "rows in the table")
	// Output:
	// 4 panels; 1-bit OSQ (bbq) ranks the true top 10 lower than int8 (7 bits): true
	// 4 rows in the table
}
