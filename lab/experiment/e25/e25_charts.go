package e25

import (
	"fmt"
	"github.com/veclab/veclab/lab/dataset"

	"github.com/veclab/veclab/lab/chart"
)

// CountChart draws how many parents have each number of passages: the
// distribution the naive plan's duplicates come from (a count no parent
// has is left out).
func (x *Index) CountChart() *chart.Bars {
	hist := x.countHistogram()
	var cats []string
	var parents []float64
	for c := 1; c < len(hist); c++ {
		if hist[c] > 0 {
			cats = append(cats, fmt.Sprint(c))
			parents = append(parents, float64(hist[c]))
		}
	}
	return chart.NewBars("parents by number of passages (lab)", "parents", cats...).Add("parents", parents)
}

// Row is the shape's row of one method (e25Parents, e25Naive,
// e25NaiveKPrime), or a zero row when it was not measured.
func (s Shape) Row(method string) Row {
	for _, r := range s.Rows {
		if r.Method == method {
			return r
		}
	}
	return Row{}
}

// ShapeChart draws, against the mean passages per parent, what the
// naive plan returns (distinct parents, true parents) beside the parent
// walk's true parents, for the shapes of [Shapes] with a fixed count
// and the default spread: the shortfall grows with the duplicates, which
// the walk never returns. Recall is scaled by k, so all three lines count
// documents.
func ShapeChart(shapes []Shape) *chart.Line {
	var k, ef int
	var meanX, naiveDocs, naiveRec, parRec []float64
	for _, s := range shapes {
		if s.Config.MinPassages != s.Config.MaxPassages || s.Config.Spread != dataset.DefaultPassageSpread {
			continue
		}
		par, nai := s.Row(e25Parents), s.Row(e25Naive)
		k, ef = par.Asked, par.Ef
		meanX = append(meanX, s.Mean)
		naiveDocs = append(naiveDocs, nai.MeanParents)
		naiveRec = append(naiveRec, nai.Recall*float64(k))
		parRec = append(parRec, par.Recall*float64(k))
	}
	c := chart.NewLine(fmt.Sprintf("naive plan vs passages per parent, ef = %d, k = %d (lab)", ef, k), "passages per parent", "documents")
	c.Add("naive: distinct parents returned", meanX, naiveDocs)
	c.Add("naive: true parents returned (recall × k)", meanX, naiveRec)
	c.Add("parents: true parents returned (recall × k)", meanX, parRec)
	return c
}
