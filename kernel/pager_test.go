package kernel

import (
	"strings"
	"testing"

	"github.com/veclab/veclab/kernel/eval"
)

// TestPagerAndClearOutput: `x?` answers with a pager payload, an unknown
// name with a line on stdout; display.ClearOutput sends clear_output.
func TestPagerAndClearOutput(t *testing.T) {
	c, _ := startKernel(t, eval.CaptureGo)
	c.execute("import \"github.com/veclab/veclab/engine\"\nimport \"github.com/veclab/veclab/kernel/display\"", false)
	for _, tc := range []struct {
		code, want string // want: in the page's text/plain, or "" for not found
	}{
		{"engine.CheckVector?", "CheckVector"},
		{"??engine.CheckVector", "CheckVector"},
		{"engine.NoSuchThing?", ""},
	} {
		r, ms := c.execute(tc.code, false)
		rc := content(t, r)
		payload, _ := rc["payload"].([]any)
		if rc["status"] != "ok" {
			t.Errorf("%q: %v", tc.code, rc)
			continue
		}
		if tc.want == "" {
			if len(payload) != 0 || len(ofType(ms, "stream")) != 1 {
				t.Errorf("%q: payload %v, messages %s", tc.code, payload, types(ms))
			}
			continue
		}
		if len(payload) != 1 {
			t.Errorf("%q: payload %v", tc.code, payload)
			continue
		}
		p := payload[0].(map[string]any)
		text, _ := p["data"].(map[string]any)["text/plain"].(string)
		if p["source"] != "page" || !strings.Contains(text, tc.want) {
			t.Errorf("%q: page %v", tc.code, p)
		}
	}
	_, ms := c.execute(`fmt.Println("before"); display.ClearOutput(true); fmt.Println("after")`, false)
	if got := types(ms); !strings.Contains(got, "stream,clear_output,stream") {
		t.Errorf("ClearOutput: %s", got)
	}
	if cl := ofType(ms, "clear_output"); len(cl) != 1 || content(t, cl[0])["wait"] != true {
		t.Errorf("clear_output %v", cl)
	}
}
