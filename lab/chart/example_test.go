package chart_test

import (
	"fmt"
	"strings"

	"github.com/veclab/veclab/lab/chart"
)

// A recall-vs-ef curve on a log axis; a notebook cell shows it through SVG().
func ExampleLine() {
	c := chart.NewLine("Redis EF_RUNTIME", "EF_RUNTIME", "recall@10")
	c.LogX = true
	c.Add("article", []float64{10, 50, 200}, []float64{0.616, 0.962, 1.000})
	fmt.Println(c.Err(), strings.HasPrefix(c.SVG(), "<?xml"))
	// Output: <nil> true
}
