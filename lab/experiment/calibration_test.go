package experiment

import (
	"strings"
	"testing"
)

func TestCalibrate(t *testing.T) {
	agrees := Within("E06", "10 (Redis EF_RUNTIME): recall@10 is 0.616", 0.616, 0.623, RecallTolerance, "")
	differs := Within("E06", "10 (Redis EF_RUNTIME): recall@10 is 0.616", 0.616, 0.96, RecallTolerance, "")
	if !agrees.Agrees || differs.Agrees {
		t.Fatalf("test verdicts: %v / %v", agrees, differs)
	}
	for _, c := range []struct {
		name string
		env  *Env
		want bool
	}{
		{"generated, article scale", &Env{Scale: Article}, true},
		{"generated, spread 1.0 set", &Env{Scale: Article, spread: 1}, true},
		{"another spread", &Env{Scale: Article, spread: 1.25}, false},
		{"small scale", &Env{Scale: Small}, false},
		{"a real data set", &Env{Scale: Article, real: &realData{name: "glove-100k"}}, false},
		{"no env", nil, false},
	} {
		if got := c.env.Calibrated(); got != c.want {
			t.Errorf("%s: Calibrated() = %v, want %v", c.name, got, c.want)
		}
		v := Calibrate(c.env, agrees)
		if has := strings.Contains(v.Reason, calibration); has != c.want {
			t.Errorf("%s: agreeing reason %q carries the calibration line: %v, want %v", c.name, v.Reason, has, c.want)
		}
		if v.Agrees != agrees.Agrees || v.Margin != agrees.Margin {
			t.Errorf("%s: Calibrate changed the verdict: %v", c.name, v)
		}
		if d := Calibrate(c.env, differs); d.Reason != differs.Reason {
			t.Errorf("%s: a differing verdict gained %q", c.name, d.Reason)
		}
	}
}
