"""Turn the knobs of the teaching notebooks 00 and 00b and of notebook 04 as a front end does,
through the real jupyter_client stack, and check that each redraw shows what
the knob asks for.

Started by kernel/knobs_test.go (TestNotebookKnobs) with JUPYTER_PATH
pointing at a temporary kernelspec and VECLAB_SCALE=small. argv: the
kernel name and the notebooks directory. For each notebook it executes the
code cells in order up to its last knob cell, then sends comm_msg updates
to the controls the way @jupyter-widgets/controls does (a slider's value, a
selection's index) and reads the redraw under that comm_msg: the printed
line, the picture (SVG), the Output widget's capture around both. Prints one
JSON object: {"checks": [[name, ok, detail], ...], "redraw_ms": {...}}.
"""
import json
import os
import sys
import time

import kclient

client = kclient.Client(sys.argv[1], timeout=300)
km, kc, checks, check, collect = client.km, client.kc, client.checks, client.check, client.collect
nbdir = sys.argv[2]
redraw_ms = {}


def execute(code):
    return client.execute(code, reply_timeout=300)


def update(comm_id, state):
    """A front end's change of one control; returns the redraw's messages and its time."""
    msg = kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {"method": "update", "state": state, "buffer_paths": []}})
    start = time.time()
    kc.session.send(kc.shell_channel.socket, msg)
    outs = collect(msg["header"]["msg_id"])
    return outs, (time.time() - start) * 1000


def texts(outs):
    return "".join(m["content"]["text"] for m in outs if m["msg_type"] == "stream" and m["content"]["name"] == "stdout")


def svgs(outs):
    return [m for m in outs if m["msg_type"] == "display_data" and "image/svg+xml" in m["content"]["data"]]


def controls(outs):
    """The control models a cell opened, by description: (comm id, state), each
    state with the cell's later updates applied, as a front end applies them."""
    states = {}
    for m in outs:
        if m["msg_type"] == "comm_open":
            states[m["content"]["comm_id"]] = dict(m["content"]["data"]["state"])
        elif m["msg_type"] == "comm_msg" and m["content"]["data"].get("method") == "update":
            states.get(m["content"]["comm_id"], {}).update(m["content"]["data"]["state"])
    return {st["description"]: (cid, st) for cid, st in states.items() if st.get("description")}


def captured(outs):
    """The outputs a cell sent while an Output widget's msg_id named it (what a front end puts in the output area)."""
    inside, got = False, []
    for m in outs:
        if m["msg_type"] == "comm_msg" and "msg_id" in m["content"]["data"].get("state", {}):
            inside = bool(m["content"]["data"]["state"]["msg_id"])
        elif inside and m["msg_type"] in ("stream", "display_data", "execute_result", "clear_output", "error"):
            got.append(m["msg_type"])
    return got


def run_until(name, last_id):
    """Executes the notebook's code cells up to the cell with id last_id; returns each cell's outputs by id."""
    with open(os.path.join(nbdir, name)) as f:
        nb = json.load(f)
    outs_by_id = {}
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] != "code":
            continue
        src = "".join(c["source"])
        reply, outs = execute(src)
        errs = [m["content"] for m in outs if m["msg_type"] == "error"]
        if reply["status"] != "ok" or errs:
            raise RuntimeError("%s cell %d: %s %s" % (name, i, reply.get("evalue"), errs))
        outs_by_id[c.get("id")] = outs
        if c.get("id") == last_id:
            return outs_by_id
    raise RuntimeError("%s has no cell %s" % (name, last_id))


def redraw(label, comm_id, state, want):
    """Changes one control and checks the redraw: the line want printed, one picture, inside the Output's capture."""
    outs, ms = update(comm_id, state)
    redraw_ms[label] = round(ms)
    got = texts(outs)
    errs = [m["content"] for m in outs if m["msg_type"] == "error"]
    check(label + ": prints " + repr(want), want in got and not errs, (got, errs))
    check(label + ": one picture", len(svgs(outs)) == 1, [m["msg_type"] for m in outs])
    clears = [m for m in outs if m["msg_type"] == "clear_output"]
    check(label + ": clear_output(wait) first", clears and clears[0]["content"]["wait"] is True, [m["msg_type"] for m in outs])
    return got


try:
    # Notebook 00: the M/efConstruction knobs and the ef knob.
    cells = run_until("00-hnsw-by-picture.ipynb", "hnsw-pic-knobs-ef")
    mk = controls(cells["hnsw-pic-knobs-m"])
    ek = controls(cells["hnsw-pic-knobs-ef"])
    check("00: the M cell's controls", set(mk) == {"M", "efConstruction", "query"}, list(mk))
    check("00: the ef cell's controls", set(ek) == {"ef", "query"}, list(ek))
    check("00: M cell's static table and first view", "one search (k = 5, ef = 10)" in json.dumps([m["content"] for m in cells["hnsw-pic-knobs-m"]])
          and "M = 4, efConstruction = 32: 5 layers" in texts(cells["hnsw-pic-knobs-m"]), texts(cells["hnsw-pic-knobs-m"]))
    # The cells' own runs draw the default view outside the output area: nbclient, which syncs captured outputs back
    # on the shell socket while it waits for the reply, can stall on a large one until the cell's timeout.
    for cid in ("hnsw-pic-knobs-m", "hnsw-pic-knobs-ef"):
        check("00: %s captures nothing in its own run" % cid, captured(cells[cid]) == [] and svgs(cells[cid]), captured(cells[cid]))
    efc = mk["efConstruction"][1]
    check("00: efConstruction slider is base 2, 4…128", efc.get("base") == 2 and efc.get("step") == 1 and efc.get("min") == 2 and efc.get("max") == 7, efc)
    # Between the clusters, M = 2 finds none of the true top 5 and M = 6 all of them (the cell's table).
    redraw("00 M = 2", mk["M"][0], {"value": 2}, "M = 2, efConstruction = 32: 9 layers")
    got = redraw("00 M = 6", mk["M"][0], {"value": 6}, "ef = 10: 5 of the true top 5 found")
    check("00 M = 6: the graph's facts", "M = 6, efConstruction = 32" in got, got)
    redraw("00 query inside a cluster", mk["query"][0], {"index": 0}, "5 of the true top 5 found")
    redraw("00 efConstruction = 4", mk["efConstruction"][0], {"value": 4}, "M = 6, efConstruction = 4")
    # The ef knob: 3 of 5 at ef 10, all 5 from ef 15 between the clusters.
    redraw("00 ef = 12", ek["ef"][0], {"value": 12}, "ef = 12: 3 of the true top 5 found")
    redraw("00 ef = 15", ek["ef"][0], {"value": 15}, "ef = 15: 5 of the true top 5 found")
    reply, outs = execute("fmt.Println(efSlider.Value(), mSlider.Value(), efcSlider.Value())")
    check("00: the kernel has the last values", texts(outs) == "15 6 4\n", texts(outs))

    # Notebook 00b in a fresh kernel state: bits, centring and oversample.
    km.restart_kernel(now=True)
    kc.wait_for_ready(timeout=120)
    cells = run_until("00b-quantization-by-picture.ipynb", "quant-pic-knobs")
    qk = controls(cells["quant-pic-knobs"])
    check("00b: the controls", set(qk) == {"bits", "centring", "oversample"}, list(qk))
    first = texts(cells["quant-pic-knobs"])
    check("00b: static table and first view", "OSQ by bits and centring" in json.dumps([m["content"] for m in cells["quant-pic-knobs"]])
          and "1-bit OSQ, plain mean: 62 B/vector" in first and "⌈3·10⌉ = 30 candidates" in first, first)
    check("00b: the cell captures nothing in its own run", captured(cells["quant-pic-knobs"]) == [] and svgs(cells["quant-pic-knobs"]),
          captured(cells["quant-pic-knobs"]))
    redraw("00b oversample = 10", qk["oversample"][0], {"value": 10.0}, "⌈10·10⌉ = 100 candidates")
    redraw("00b bits = 8", qk["bits"][0], {"index": 3}, "8-bit OSQ, plain mean: 400 B/vector")
    redraw("00b centring = unit-length mean", qk["centring"][0], {"index": 1}, "8-bit OSQ, unit-length mean (Lucene)")
    redraw("00b oversample = 1", qk["oversample"][0], {"value": 1.0}, "⌈1·10⌉ = 10 candidates")
    # Notebook 04 in a fresh kernel state: filter selectivity × strategy, at the small scale (20 queries, 2,000
    # documents: the figures are those of the cell's own grid there).
    km.restart_kernel(now=True)
    kc.wait_for_ready(timeout=120)
    cells = run_until("04-pgvector-filters-and-iterative-scan.ipynb", "pgvector-filters-knobs")
    own = cells["pgvector-filters-knobs"]
    fk = controls(own)
    check("04: the controls", set(fk) == {"selectivity", "strategy"}, list(fk))
    sel_state, strat_state = fk["selectivity"][1], fk["strategy"][1]
    labels = sel_state.get("_options_labels", [])
    check("04: the selectivity knob is a SelectionSlider over 7 filters from 0.1 % to 51 %",
          sel_state.get("_model_name") == "SelectionSliderModel" and labels[:1] == ["0.1 %"] and labels[-1:] == ["51 %"] and len(labels) == 7, sel_state)
    check("04: it starts at the article's filter, pgvector's default post-filter",
          labels[sel_state.get("index", -1)] == "4.0 %" and strat_state.get("_options_labels", [None])[strat_state.get("index", -1)] == "post-filter 40", (sel_state, strat_state))
    first = texts(own)
    check("04: static grid and first view", "of every strategy at every selectivity" in json.dumps([m["content"] for m in own])
          and "post-filter 40 at s = 4.0 % (category == 'c3' && year >= 2022): recall@10 0.250, 2.5 rows of 10" in first
          and "iterative scan, relaxed_order: 10.0 rows, recall 1.000" in first, first)
    check("04: the cell captures nothing in its own run", captured(own) == [] and svgs(own), captured(own))
    # At the article's filter the iterative scan recovers what the post-filter leaves; at 0.1 % only 3 documents
    # match, so no strategy returns 10 rows and the post-filter returns almost none.
    redraw("04 strategy = relaxed_order", fk["strategy"][0], {"index": 2},
           "relaxed_order at s = 4.0 % (category == 'c3' && year >= 2022): recall@10 1.000, 10.0 rows of 10")
    got = redraw("04 selectivity = 0.1 %", fk["selectivity"][0], {"index": 0},
                 "relaxed_order at s = 0.1 % (category == 'c3' && year == 2025 && region == 'latam'): recall@10 1.000, 3.0 rows of 10")
    check("04 selectivity = 0.1 %: pgvector's story there", "the post-filter kept 0.1 of 10" in got, got)
    redraw("04 strategy = post-filter 40", fk["strategy"][0], {"index": 0}, "post-filter 40 at s = 0.1 %")
    redraw("04 selectivity = 51 %", fk["selectivity"][0], {"index": 6}, "post-filter 40 at s = 51 %")
    reply, outs = execute("fmt.Println(selSlider.Value(), strategySel.Value())")
    check("04: the kernel has the last values", texts(outs) == "51 % post-filter 40\n", texts(outs))
except Exception:  # reported as a failed check, with what ran before
    import traceback
    check("driver", False, traceback.format_exc())
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=False)

print(json.dumps({"checks": checks, "redraw_ms": redraw_ms}))
