"""Drive the veclab kernel's comms and widgets as a front end does, through
the real jupyter_client stack (Debian's python3-jupyter-client).

Started by kernel/widgets_test.go (TestWidgetsJupyterClient) with
JUPYTER_PATH pointing at a temporary kernelspec. Covers: comm open, update,
echo_update, close in both directions; comm_info with target filtering;
binary buffers both ways; callbacks (their output and errors under the
comm_msg); an interrupt inside a callback; Interact's preemption and
last-value-wins; the control target's request_states. Prints one JSON
object: {"checks": [[name, ok, detail], ...]}.
"""
import json
import sys
import threading
import time
import uuid

import kclient

client = kclient.Client(sys.argv[1], timeout=30)
km, kc, checks, check, collect = client.km, client.kc, client.checks, client.check, client.collect


def execute(code):
    return client.execute(code, reply_timeout=60)


def comm_send(msg_type, content, buffers=None):
    msg = kc.session.msg(msg_type, content)
    kc.session.send(kc.shell_channel.socket, msg, buffers=buffers)
    return msg["header"]["msg_id"]


def update(comm_id, state, buffers=None, paths=None):
    return comm_send("comm_msg", {"comm_id": comm_id, "data": {
        "method": "update", "state": state, "buffer_paths": paths or []}}, buffers)


def click(comm_id):
    return comm_send("comm_msg", {"comm_id": comm_id, "data": {"method": "custom", "content": {"event": "click"}}})


def model_id(outs):
    for m in outs:
        if m["msg_type"] in ("execute_result", "display_data"):
            v = m["content"]["data"].get("application/vnd.jupyter.widget-view+json")
            if v:
                return v["model_id"], m["content"]["data"]
    return None, None


def texts(outs, name="stdout"):
    return "".join(m["content"]["text"] for m in outs if m["msg_type"] == "stream" and m["content"]["name"] == name)


def comm_info(target=None):
    content = {} if target is None else {"target_name": target}
    msg = kc.session.msg("comm_info_request", content)
    kc.shell_channel.send(msg)
    while True:
        r = kc.get_shell_msg(timeout=30)
        if r["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            return r["content"]["comms"]


try:
    # 1. A slider: its layout, style and itself are opened, it shows as a view.
    reply, outs = execute('''import "github.com/veclab/veclab/kernel/widget"
import "github.com/veclab/veclab/kernel/display"
ef := widget.NewIntSlider("ef", 64, 10, 400)
ef.OnChange(func() { fmt.Println("ef is now", ef.Value()) })
ef''')
    opens = [m for m in outs if m["msg_type"] == "comm_open"]
    slider, data = model_id(outs)
    check("open: status", reply["status"] == "ok", reply)
    check("open: three comms (layout, style, slider)", len(opens) == 3 and opens[-1]["content"]["comm_id"] == slider,
          [(m["content"]["data"]["state"]["_model_name"], m["content"]["comm_id"]) for m in opens])
    st = opens[-1]["content"]["data"]["state"] if opens else {}
    check("open: IntSliderModel state", st.get("_model_name") == "IntSliderModel" and st.get("_model_module") == "@jupyter-widgets/controls"
          and st.get("_model_module_version") == "2.0.0" and st.get("value") == 64 and st.get("layout", "").startswith("IPY_MODEL_"), st)
    check("open: protocol version metadata", opens and opens[-1]["metadata"].get("version") == "2.1.0", opens and opens[-1]["metadata"])
    check("open: text/plain fallback", data and "IntSlider" in data.get("text/plain", ""), data)

    # 2. comm_info with and without a target.
    info = comm_info("jupyter.widget")
    check("comm_info: lists the slider", slider in info and info[slider]["target_name"] == "jupyter.widget", list(info)[:5])
    check("comm_info: target filter", comm_info("no.such.target") == {}, "")

    # 3. An update from the front end: echo_update first, then the observer's output under the comm_msg.
    mid = update(slider, {"value": 128})
    outs = collect(mid)
    kinds = [(m["msg_type"], m["content"].get("data", {}).get("method")) for m in outs]
    check("update: echo_update first", kinds and kinds[0] == ("comm_msg", "echo_update") and outs[0]["content"]["data"]["state"] == {"value": 128}, kinds)
    check("update: callback output under the comm_msg", texts(outs) == "ef is now 128\n", kinds)
    reply, outs = execute("ef.Value()")
    check("update: kernel state", outs and outs[-1]["content"]["data"]["text/plain"] == "128", outs)

    # 4. Binary buffers both ways.
    reply, outs = execute('''vw, err := widget.New(map[string]any{"_model_module": "veclab", "_model_module_version": "1.0.0",
	"_model_name": "VectorModel", "_view_module": "veclab", "_view_module_version": "1.0.0", "_view_name": "VectorView",
	"data": []byte{1, 2, 3, 250}})
check(err)
vw.Observe("data", func() { fmt.Println("got", len(vw.Get("data").([]byte)), "bytes") })
display.Any(vw)''')
    op = [m for m in outs if m["msg_type"] == "comm_open"]
    check("buffers: kernel to front end", op and op[0]["buffers"] and bytes(op[0]["buffers"][0]) == bytes([1, 2, 3, 250])
          and op[0]["content"]["data"]["buffer_paths"] == [["data"]], op and op[0]["content"])
    vid = op[0]["content"]["comm_id"] if op else ""
    mid = update(vid, {"data": None}, buffers=[bytes(range(10))], paths=[["data"]])
    outs = collect(mid)
    echo = [m for m in outs if m["msg_type"] == "comm_msg"]
    check("buffers: front end to kernel", texts(outs) == "got 10 bytes\n", [m["msg_type"] for m in outs])
    check("buffers: echoed as buffers", echo and echo[0]["buffers"] and bytes(echo[0]["buffers"][0]) == bytes(range(10)), echo and echo[0]["content"])

    # 5. Button callbacks: display output, an error that is not fatal.
    reply, outs = execute('''b := widget.NewButton("go")
b.OnClick(func() { display.Markdown("**clicked**") })
bad := widget.NewButton("bad")
bad.OnClick(func() { var m map[string]int; m["x"] = 1 })
spin := widget.NewButton("spin")
spin.OnClick(func() { fmt.Println("spinning"); n := 0; for { n++ } })
widget.HBox(b, bad, spin)''')
    ids = {m["content"]["data"]["state"].get("description"): m["content"]["comm_id"] for m in outs
           if m["msg_type"] == "comm_open" and m["content"]["data"]["state"]["_model_name"] == "ButtonModel"}
    outs = collect(click(ids.get("go", "")))
    check("click: display under the comm_msg", any(m["msg_type"] == "display_data" and "text/markdown" in m["content"]["data"] for m in outs),
          [m["msg_type"] for m in outs])
    outs = collect(click(ids.get("bad", "")))
    errs = [m for m in outs if m["msg_type"] == "error"]
    check("callback error: reported on IOPub", len(errs) == 1 and errs[0]["content"]["ename"] == "runtime error", [m["content"] for m in outs])
    reply, outs = execute("1 + 1")
    check("callback error: kernel alive", reply["status"] == "ok", reply)

    # 6. An interrupt inside a callback (SIGINT, the kernelspec's interrupt_mode).
    mid = click(ids.get("spin", ""))
    seen = []
    deadline = time.time() + 30
    while time.time() < deadline and "spinning" not in texts(seen):
        m = kc.get_iopub_msg(timeout=30)
        if m["parent_header"].get("msg_id") == mid:
            seen.append(m)
    km.interrupt_kernel()
    outs = seen + collect(mid)
    errs = [m for m in outs if m["msg_type"] == "error"]
    check("interrupt: stops the callback", len(errs) == 1 and errs[0]["content"]["ename"] == "Interrupted", [m["content"] for m in outs])
    reply, outs = execute('"alive"')
    check("interrupt: kernel alive", reply["status"] == "ok", reply)

    # 7. Interact: a change preempts a slow redraw; of queued changes the last wins.
    reply, outs = execute('''import "time"
k := widget.NewIntSlider("k", 1, 1, 10)
ia := widget.Interact(func() {
	v := k.Value()
	fmt.Println("start", v)
	if v == 5 {
		for {
			time.Sleep(time.Millisecond)
		}
	}
	fmt.Println("done", v)
}, k)
ia''')
    first = texts(outs)
    check("interact: first run in the cell", first == "start 1\ndone 1\n", first)
    kid = [m["content"]["comm_id"] for m in outs if m["msg_type"] == "comm_open"
           and m["content"]["data"]["state"]["_model_name"] == "IntSliderModel"]
    out_id = [m["content"]["comm_id"] for m in outs if m["msg_type"] == "comm_open"
              and m["content"]["data"]["state"]["_model_name"] == "OutputModel"]
    # The first run's output lies between the Output's msg_id set and reset,
    # where the front end routes it into the output area.
    seq = []
    for m in outs:
        if m["msg_type"] == "stream":
            seq.append("stream")
        elif m["msg_type"] == "comm_msg" and out_id and m["content"]["comm_id"] == out_id[0] and "msg_id" in m["content"]["data"].get("state", {}):
            seq.append("msg_id=" + ("set" if m["content"]["data"]["state"]["msg_id"] else "reset"))
    check("interact: first run's output inside the capture", seq == ["msg_id=set", "stream", "msg_id=reset"], seq)
    kid = kid[0] if kid else ""
    slow = update(kid, {"value": 5})
    seen = []
    deadline = time.time() + 30
    while time.time() < deadline and "start 5" not in texts(seen):
        m = kc.get_iopub_msg(timeout=30)
        if m["parent_header"].get("msg_id") == slow:
            seen.append(m)
    fast = update(kid, {"value": 2})
    slow_outs = seen + collect(slow)
    check("interact: the slow run was preempted, not reported", not [m for m in slow_outs if m["msg_type"] == "error"]
          and "done 5" not in texts(slow_outs), [(m["msg_type"], m["content"]) for m in slow_outs][-6:])
    msg_ids = [m["content"]["data"]["state"].get("msg_id") for m in slow_outs
               if m["msg_type"] == "comm_msg" and out_id and m["content"]["comm_id"] == out_id[0]]
    check("interact: output captured (msg_id set, then reset)", msg_ids[:1] == [slow] and msg_ids[-1:] == [""], msg_ids)
    clears = [m for m in slow_outs if m["msg_type"] == "clear_output"]
    check("interact: clear_output(wait) before redrawing", clears and clears[0]["content"]["wait"] is True, clears)
    got = texts(collect(fast))
    check("interact: the preempting change redraws", got == "start 2\ndone 2\n", got)
    # Changes queued behind a busy kernel (a cell sleeping): only the last redraws.
    busy = kc.execute('time.Sleep(700 * time.Millisecond)')
    burst = [update(kid, {"value": v}) for v in (3, 4, 6)]
    collect(busy)
    runs = {v: texts(collect(b)) for v, b in zip((3, 4, 6), burst)}
    check("interact: last value wins", runs == {3: "", 4: "", 6: "start 6\ndone 6\n"}, runs)
    reply, outs = execute("k.Value()")
    check("interact: the kernel has the last value", outs and outs[-1]["content"]["data"]["text/plain"] == "6", outs)

    # 8. The control target: request_states lists every live widget.
    ctl = uuid.uuid4().hex
    collect(comm_send("comm_open", {"comm_id": ctl, "target_name": "jupyter.widget.control", "data": {}}))
    outs = collect(comm_send("comm_msg", {"comm_id": ctl, "data": {"method": "request_states"}}))
    us = [m for m in outs if m["msg_type"] == "comm_msg" and m["content"]["data"].get("method") == "update_states"]
    states = us[0]["content"]["data"]["states"] if us else {}
    check("control: update_states", slider in states and states[slider]["model_name"] == "IntSliderModel"
          and states[slider]["state"]["value"] == 128 and vid in states, list(states)[:3])

    # 9. Close from the front end and from the kernel.
    collect(comm_send("comm_close", {"comm_id": slider, "data": {}}))
    check("close: front end", slider not in comm_info(), "")
    reply, outs = execute("b.Close()")
    check("close: kernel", any(m["msg_type"] == "comm_close" and m["content"]["comm_id"] == ids.get("go") for m in outs),
          [m["msg_type"] for m in outs])
    # An unknown target is closed at once.
    bogus = uuid.uuid4().hex
    outs = collect(comm_send("comm_open", {"comm_id": bogus, "target_name": "no.such.target", "data": {}}))
    check("unknown target: comm_close back", any(m["msg_type"] == "comm_close" and m["content"]["comm_id"] == bogus for m in outs),
          [m["msg_type"] for m in outs])
except Exception as e:  # reported as a failed check, with what ran before
    import traceback
    check("driver", False, traceback.format_exc())
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=False)

print(json.dumps({"checks": checks}))
