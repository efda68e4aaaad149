"""Interrupt, survive and remember: drive the veclab kernel through the
real jupyter_client stack (Debian's python3-jupyter-client).

Started by kernel/jupyter_robust_test.go with JUPYTER_PATH pointing at a
temporary kernelspec, VECLAB_HISTORY at a temporary file and
VECLAB_MEMORY_LIMIT set. Prints one JSON object: for each named step, the
reply content, the IOPub messages (type, content) of the request, how long
it took and, for interrupted cells, the seconds from the interrupt to the
reply.
"""
import json
import sys
import threading
import time

import jupyter_client

km, kc = jupyter_client.manager.start_new_kernel(kernel_name=sys.argv[1], startup_timeout=120)
result = {}


def interrupt_message():
    """An interrupt_request on the control channel (interrupt_mode "message")."""
    kc.control_channel.send(kc.session.msg("interrupt_request", {}))


def run(name, code, interrupt_after=None, how="signal", timeout=120, **kw):
    outs = []
    sent = {}

    def interrupt():
        time.sleep(interrupt_after)
        sent["at"] = time.monotonic()
        if how == "signal":
            km.interrupt_kernel()  # SIGINT: the kernelspec's interrupt_mode
        else:
            interrupt_message()

    t = None
    if interrupt_after is not None:
        t = threading.Thread(target=interrupt)
        t.start()
    start = time.monotonic()
    reply = kc.execute_interactive(
        code, output_hook=lambda m: outs.append([m["msg_type"], m["content"]]), timeout=timeout, **kw)
    end = time.monotonic()
    entry = {"reply": reply["content"], "iopub": outs, "elapsed": end - start}
    if t is not None:
        t.join()
        entry["after_interrupt"] = end - sent["at"]
    result[name] = entry


try:
    run("setup", 'import "time"\nimport "os"\n'
        'import "github.com/veclab/veclab/engine/hnsw"\n'
        'import "github.com/veclab/veclab/lab/dataset"\n'
        'import "github.com/veclab/veclab/lab/experiment"\n'
        'keep := 42\n'
        'ds, _ := dataset.Generate(dataset.Config{N: 30000, Dim: 384, Queries: 10, Seed: 1})\n'
        'keys := make([]uint64, ds.Base.N)\n'
        'for i := range keys { keys[i] = uint64(i) }\n'
        'ds.Base.N')
    # Interrupts: a 30 s sleep (SIGINT), a 30k x 384 HNSW build
    # (interrupt_request), an experiment at full scale, a channel receive,
    # a stdin read, each interrupted 1 s in.
    run("sleep", "time.Sleep(30 * time.Second)", interrupt_after=1.0)
    run("hnsw", "ix, _ := hnsw.New(hnsw.Config{Dim: 384})\nix.AddBatch(keys, ds.Base)",
        interrupt_after=1.0, how="message")
    run("hnsw_after", "fmt.Println(keep, ix.Len() > 0 && ix.Len() < 30000)")
    run("experiment", 'env, _ := experiment.NewEnv(experiment.Article, 1)\n'
        'e02, _ := experiment.Lookup("E02")\nr := experiment.Run(env, e02)\nr.Status', interrupt_after=1.0)
    run("receive", "ch := make(chan int)\nv := <-ch\nv", interrupt_after=1.0)
    run("stdin", "var s string\nfmt.Scanln(&s)\ns", interrupt_after=1.0, allow_stdin=True,
        stdin_hook=lambda m: None)  # asked for input, never answers
    run("alive", "keep")
    # Survive: a panic in a goroutine while its cell runs, one after its
    # cell ended, os.Exit, a goroutine that loops forever, runaway memory.
    run("go_panic", 'go func() { panic("boom in a goroutine") }()\ntime.Sleep(10 * time.Second)')
    run("go_panic_after", "keep")
    run("late_panic", 'go func() { time.Sleep(200 * time.Millisecond); panic("late boom") }()')
    time.sleep(0.6)
    run("late_report", "keep + 1")
    run("exit", "os.Exit(3)")
    run("exit_after", "keep")
    run("spin", "spins := 0\ngo func() { for { spins++ } }()")
    run("spin_answers", "1 + 1")
    km.interrupt_kernel()  # no cell running: stops the goroutines cells left
    time.sleep(0.5)
    run("spin_stopped", "a := spins\ntime.Sleep(200 * time.Millisecond)\nspins == a && a > 0")
    run("memory", "func hog() int {\n\tvar k [][]byte\n\tfor {\n\t\tk = append(k, make([]byte, 64<<20))\n\t}\n\treturn len(k)\n}\nhog()")
    run("memory_after", "keep")
    # History: this session's cells, with outputs; search; then a restart,
    # and the previous session read back from the file.
    result["tail"] = kc.history(hist_access_type="tail", n=3, output=True, raw=True, reply=True, timeout=30)["content"]
    result["search"] = kc.history(hist_access_type="search", pattern="keep*", unique=True, output=False, raw=True,
                                  reply=True, timeout=30)["content"]
    result["search_n"] = kc.history(hist_access_type="search", pattern="*time.Sleep*", n=2, output=False, raw=True,
                                    reply=True, timeout=30)["content"]
    km.restart_kernel(now=False)
    kc.wait_for_ready(timeout=60)
    run("after_restart", "1")
    result["range_previous"] = kc.history(hist_access_type="range", session=-1, start=1, stop=3, output=True, raw=True,
                                          reply=True, timeout=30)["content"]
    result["range_current"] = kc.history(hist_access_type="range", session=0, start=1, stop=0, output=False, raw=True,
                                         reply=True, timeout=30)["content"]
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=False)

print(json.dumps(result))
