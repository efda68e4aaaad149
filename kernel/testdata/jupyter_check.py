"""Drive the veclab kernel through the real jupyter_client stack.

Started by kernel/jupyter_test.go with JUPYTER_PATH pointing at a temporary
kernelspec. Prints one JSON object: for each named step, the reply content
and the IOPub messages (type, content) of the request.
"""
import json
import sys
import threading
import time

import jupyter_client

km, kc = jupyter_client.manager.start_new_kernel(kernel_name=sys.argv[1], startup_timeout=120)
result = {}


def run(name, code, **kw):
    outs = []
    reply = kc.execute_interactive(
        code, output_hook=lambda m: outs.append([m["msg_type"], m["content"]]), timeout=60, **kw)
    result[name] = {"reply": reply["content"], "iopub": outs}


try:
    run("print", 'fmt.Println("hello from a Go cell")')
    run("table", '''import "github.com/veclab/veclab/lab/table"
t := table.New("E02 defaults", table.Col("store", ""), table.Col("recall@10", ""))
t.AddValues("redis", 0.616)
t''')
    # A progress bar: live display_data and update_display_data, then one
    # clear_output and the cell's other outputs again.
    run("progress", '''import (
	"time"

	"github.com/veclab/veclab/kernel/display"
)
bar := display.Progress()
fmt.Println("before")
for i := 0; i <= 3; i++ {
	bar(i, 3, "build")
	time.Sleep(250 * time.Millisecond)
}
display.Markdown("kept")
fmt.Println("after")''')
    run("error", 'x := 1\npanic(fmt.Sprintf("boom %d", x))')
    run("alive", "x + 41")
    run("stdin", 'var name string\nfmt.Scanln(&name)\n"hello " + name',
        allow_stdin=True, stdin_hook=lambda m: kc.input("Ada"))

    def interrupt():
        time.sleep(1.0)
        km.interrupt_kernel()

    threading.Thread(target=interrupt).start()
    run("interrupt", "n := 0\nfor {\n\tn++\n}")
    run("after_interrupt", "n > 0")
    kc.execute_interactive('import "strings"', timeout=30)
    result["complete"] = kc.complete("strings.ToUpp", 13, reply=True, timeout=30)["content"]
    result["inspect"] = kc.inspect("table.New", 7, reply=True, timeout=30)["content"]
    result["kernel_info"] = kc.kernel_info(reply=True, timeout=30)["content"]

    # The debugger's variables panel, as JupyterLab drives it: debug_request
    # on the control channel (packages/debugger session.ts and service.ts).
    seq = [0]

    def debug(command, arguments):
        seq[0] += 1
        msg = kc.session.msg("debug_request", {"seq": seq[0], "type": "request", "command": command, "arguments": arguments})
        kc.control_channel.send(msg)
        while True:
            reply = kc.get_control_msg(timeout=30)
            if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                return {"msg_type": reply["msg_type"], "content": reply["content"]}

    dbg = {"info_before": debug("debugInfo", {}),
           "initialize": debug("initialize", {"clientID": "jupyterlab", "clientName": "JupyterLab", "adapterID": "veclab",
                                              "pathFormat": "path", "linesStartAt1": True, "columnsStartAt1": True,
                                              "supportsVariableType": True, "supportsVariablePaging": True}),
           "events": [],
           "attach": debug("attach", {}),
           "configurationDone": debug("configurationDone", {}),
           "info_after": debug("debugInfo", {})}
    # the initialized event on IOPub, before a cell's messages are drained
    deadline = time.time() + 10
    while time.time() < deadline and not dbg["events"]:
        try:
            m = kc.get_iopub_msg(timeout=1)
        except Exception:
            continue
        if m["msg_type"] == "debug_event":
            dbg["events"].append(m["content"])
    run("debug_cell", 'import "github.com/veclab/veclab/lab/table"\nrecalls := []float64{0.616, 0.952}\nstore := "redis"\nbest := table.New("best", table.Col("store", ""))\nbest.AddValues("qdrant")')
    dbg["inspectVariables"] = debug("inspectVariables", {})
    dbg["richInspectVariables"] = debug("richInspectVariables", {"variableName": "best"})
    dbg["setBreakpoints"] = debug("setBreakpoints", {"source": {"path": "cell.go"}, "breakpoints": [{"line": 1}], "sourceModified": False})
    dbg["disconnect"] = debug("disconnect", {"restart": False, "terminateDebuggee": False})
    result["debug"] = dbg
    # Restart: shutdown_request(restart=True), a new process, fresh state.
    km.restart_kernel(now=False)
    kc.wait_for_ready(timeout=60)
    run("after_restart", "x")
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=False)

print(json.dumps(result))
