package picture

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
)

// TestTrueRanks draws the true neighbours' code ranks for the four codes
// at small scale and checks the picture against the measurement it
// explains: the share of true neighbours left of each cut-off is recall
// after rescoring that many candidates (CodeRanking.Recall), fewer bits
// push the neighbours further down the ranking, and every bad argument
// is refused.
func TestTrueRanks(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	over := []float64{1, 3, 10, 50}
	var rankings []*experiment.CodeRanking
	for _, name := range Codes {
		q, err := experiment.TrainQuantizer(env, name)
		if err != nil {
			t.Fatal(err)
		}
		cr, err := experiment.RankCodes(env, q, 50)
		if err != nil {
			t.Fatal(err)
		}
		rankings = append(rankings, cr)
	}
	g, spreads, err := TrueRanks(Codes, rankings, over, 30)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Err(); err != nil || len(g.Charts) != len(Codes) || !strings.Contains(g.SVG(), "<svg") {
		t.Fatalf("grid: %v, %d panels for %d codes", err, len(g.Charts), len(Codes))
	}
	for i, sp := range spreads {
		for oi, o := range over {
			want, err := rankings[i].Recall(o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := sp.Within[oi] - want; diff > 1e-9 || diff < -1e-9 {
				t.Errorf("%s, o = %g: %.4f of the true neighbours left of the cut-off, recall after rescoring %.4f", sp.Name, o, sp.Within[oi], want)
			}
		}
		if !(sp.Median <= sp.P90 && sp.P90 <= sp.P99 && sp.P99 <= sp.Last && sp.Last <= sp.Ranked+1) {
			t.Errorf("%s: quantiles out of order: %v", sp.Name, sp)
		}
		if !strings.Contains(sp.String(), "median") {
			t.Errorf("String() = %q", sp)
		}
	}
	// int8 keeps the true top 10 at the top of its ranking; 1 bit does not.
	if int8s, bits := spreads[0], spreads[len(spreads)-1]; int8s.Median > int8s.K || bits.P90 <= int8s.P90 || bits.Median <= int8s.Median {
		t.Errorf("int8 %v; 1 bit %v: want fewer bits to rank the true neighbours lower", int8s, bits)
	}
	// Each panel draws rows × K true neighbours, dots and rings together.
	for i, c := range g.Charts {
		p := c.(*chart.Scatter)
		rows := min(30, len(rankings[i].TrueRanks())) // small scale runs 20 queries
		if n := len(p.Groups[0].X) + len(p.Groups[1].X); n != rows*rankings[i].K || !p.LogX {
			t.Errorf("panel %d: %d true neighbours drawn, want %d rows × %d; log x %v", i, n, rows, rankings[i].K, p.LogX)
		}
	}

	// The table lists each code's figures as the spreads hold them.
	tb := RankTable(spreads)
	if len(tb.Rows) != len(Codes) || tb.Column("within ⌈3·10⌉") < 0 {
		t.Fatalf("RankTable: %d rows, columns %v", len(tb.Rows), tb.Columns)
	}
	if got, want := tb.Cell(3, tb.Column("within ⌈3·10⌉")).String(), fmt.Sprintf("%.3f", spreads[3].Within[1]); got != want {
		t.Errorf("RankTable: 1 bit within ⌈3·10⌉ reads %s, the spread %s", got, want)
	}
	if e := RankTable(nil); len(e.Rows) != 0 || !strings.Contains(e.String(), "code") {
		t.Errorf("RankTable(nil): %d rows, %q", len(e.Rows), e.String())
	}

	for _, tc := range []struct {
		name     string
		names    []string
		rankings []*experiment.CodeRanking
		over     []float64
		rows     int
	}{
		{"no codes", nil, nil, over, 10},
		{"names and rankings differ", Codes[:2], rankings[:1], over, 10},
		{"no cut-offs", Codes[:1], rankings[:1], nil, 10},
		{"cut-off below 1", Codes[:1], rankings[:1], []float64{0.5}, 10},
		{"cut-off beyond the ranked", Codes[:1], rankings[:1], []float64{51}, 10},
		{"no rows", Codes[:1], rankings[:1], over, 0},
		{"nil ranking", Codes[:1], []*experiment.CodeRanking{nil}, over, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := TrueRanks(tc.names, tc.rankings, tc.over, tc.rows); !errors.Is(err, ErrBadArgument) {
				t.Errorf("got %v, want ErrBadArgument", err)
			}
		})
	}
}
