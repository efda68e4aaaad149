package eval

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestDebugger runs the requests of JupyterLab's variables panel, in the
// order it sends them, through Debugger.Answer over a session.
func TestDebugger(t *testing.T) {
	s := newSession(t, Options{Capture: CaptureNone})
	if res := s.Eval("ef := 80\nstore := \"redis\"", Discard{}); res.Err != nil {
		t.Fatal(res.Err)
	}
	var shell sync.Mutex
	d := NewDebugger(s, &shell, "/tmp/cells/")
	for i, tc := range []struct {
		req     string
		success bool
		has     string // a substring of the reply's JSON
		event   string // the event that follows, "" for none
	}{
		{req: `{"seq":1,"type":"request","command":"debugInfo"}`, success: true, has: `"isStarted":false`},
		{req: `{"seq":2,"command":"initialize","arguments":{"adapterID":"go"}}`, success: true, has: `"supportsVariableType":true`, event: "initialized"},
		{req: `{"seq":3,"command":"attach"}`, success: true},
		{req: `{"seq":4,"command":"debugInfo"}`, success: true, has: `"breakpointsSupported":false`},
		{req: `{"seq":5,"command":"inspectVariables"}`, success: true, has: `{"evaluateName":"ef","name":"ef","type":"int","value":"80","variablesReference":0}`},
		{req: `{"seq":6,"command":"richInspectVariables","arguments":{"variableName":"store"}}`, success: true, has: `"data":{"text/plain":"redis"}`},
		{req: `{"seq":7,"command":"richInspectVariables","arguments":{"variableName":"nope"}}`, has: `no variable nope in the session`},
		{req: `{"seq":8,"command":"setBreakpoints","arguments":{"breakpoints":[{"line":3}]}}`, success: true, has: `"verified":false`},
		{req: `{"seq":8,"command":"setBreakpoints","arguments":{"source":{"path":"/tmp/cells/1.go"},"breakpoints":[{"line":3}],"sourceModified":false}}`, success: true,
			has: `"breakpoints":[{"line":3,"message":"` + NoBreakpoints + `","source":{"path":"/tmp/cells/1.go"},"verified":false}]`},
		{req: `{"seq":9,"command":"dumpCell","arguments":{"code":"ef := 80"}}`, success: true, has: `"sourcePath":"/tmp/cells/1576319392.go"`},
		// source answers the cell dumpCell named, as JupyterLab's
		// Breakpoints and Kernel Sources panels ask for it.
		{req: `{"seq":9,"command":"source","arguments":{"source":{"path":"/tmp/cells/1576319392.go"},"sourceReference":0}}`, success: true, has: `"body":{"content":"ef := 80","mimeType":"text/x-go"}`},
		{req: `{"seq":9,"command":"source","arguments":{"source":{"path":"/tmp/cells/1.go"}}}`, has: `/tmp/cells/1.go is not a cell this kernel's debugger was given (dumpCell)`},
		{req: `{"seq":9,"command":"source","arguments":{"sourceReference":3}}`, has: `no source.path given`},
		{req: `{"seq":9,"command":"dumpCell","arguments":{"code":"ef := 80"}}`, success: true, has: `"sourcePath":"/tmp/cells/1576319392.go"`},
		{req: `{"seq":9,"command":"modules"}`, success: true, has: `{"id":` + fmt.Sprint(len(BoundPackages())) + `,"name":"cell 1576319392","path":"/tmp/cells/1576319392.go"}],"totalModules":` + fmt.Sprint(len(BoundPackages())+1) + `}`},
		{req: `{"seq":9,"command":"next"}`, has: `debug request next is not supported`},
		{req: `{"seq":10,"command":"disconnect"}`, success: true},
		{req: `{"seq":11,"command":"debugInfo"}`, success: true, has: `"isStarted":false`},
		{req: `not json`, has: `not a Debug Adapter Protocol request`},
	} {
		reply, event := d.Answer([]byte(tc.req))
		b, _ := json.Marshal(reply)
		if reply["success"] != tc.success || !strings.Contains(string(b), tc.has) {
			t.Errorf("%d %s: %s", i, tc.req, b)
		}
		if got := fmt.Sprint(event["event"]); tc.event != "" && got != tc.event || tc.event == "" && event != nil {
			t.Errorf("%d %s: event %v, want %q", i, tc.req, event, tc.event)
		}
	}

	// A cell running (the shell's lock held): the variables of the last
	// snapshot, and no rich inspection.
	d.Answer([]byte(`{"seq":12,"command":"initialize"}`))
	d.Snapshot()
	shell.Lock()
	reply, _ := d.Answer([]byte(`{"seq":13,"command":"inspectVariables"}`))
	rich, _ := d.Answer([]byte(`{"seq":14,"command":"richInspectVariables","arguments":{"variableName":"ef"}}`))
	shell.Unlock()
	if b, _ := json.Marshal(reply); !strings.Contains(string(b), `"name":"store"`) {
		t.Errorf("inspectVariables while a cell runs: %s", b)
	}
	if rich["success"] != false || !strings.Contains(fmt.Sprint(rich["message"]), "a cell is running") {
		t.Errorf("richInspectVariables while a cell runs: %v", rich)
	}

	// The kept cells are bounded: the oldest go first (ef := 80, kept
	// above, then x := 0).
	for i := range maxCells + 1 {
		d.Answer([]byte(fmt.Sprintf(`{"seq":15,"command":"dumpCell","arguments":{"code":"x := %d"}}`, i)))
	}
	if n := len(d.cells); n != maxCells {
		t.Errorf("%d cells kept after %d dumps, want %d", n, maxCells+2, maxCells)
	}
	for _, tc := range []struct {
		code string
		kept bool
	}{{"ef := 80", false}, {"x := 0", false}, {"x := 1", true}, {fmt.Sprintf("x := %d", maxCells), true}} {
		reply, _ := d.Answer([]byte(fmt.Sprintf(`{"seq":16,"command":"source","arguments":{"source":{"path":"/tmp/cells/%d.go"}}}`, murmur2([]byte(tc.code), 0))))
		if reply["success"] != tc.kept {
			t.Errorf("source of %q after %d dumps: %v, want success %v", tc.code, maxCells+2, reply, tc.kept)
		}
	}

	if reply, _ := NewDebugger(nil, nil, "").Answer([]byte(`{"seq":1,"command":"debugInfo"}`)); reply["success"] != false {
		t.Errorf("no lister: %v", reply)
	}
}

// TestMurmur2 checks murmur2 against the values JupyterLab's own murmur2
// (@jupyterlab/debugger 4.6.4, lib/hash.js, run under node) gives.
func TestMurmur2(t *testing.T) {
	for _, tc := range []struct {
		s          string
		seed0, s42 uint32
	}{
		{"ef := 80", 1576319392, 1471636570},
		{"", 0, 275804818},
		{"a", 2456313694, 1148686264},
		{"ab", 446775395, 3855859532},
		{"abc", 324500635, 3658290176},
		{"import \"fmt\"\nfmt.Println(\"é\")", 1941541105, 3259907537},
	} {
		if got, got42 := murmur2([]byte(tc.s), 0), murmur2([]byte(tc.s), 42); got != tc.seed0 || got42 != tc.s42 {
			t.Errorf("murmur2(%q) = %d, %d (seed 42), want %d, %d", tc.s, got, got42, tc.seed0, tc.s42)
		}
	}
}
