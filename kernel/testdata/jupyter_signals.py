"""Signal the veclab kernel the way jupyter_client does, one case a run.

Started by kernel/signals_test.go with JUPYTER_PATH pointing at a
temporary kernelspec; argv: kernel name, case, file for the kernel's
stderr. Prints one JSON object.
"""
import json
import os
import signal
import sys
import time

import jupyter_client

name, case, errpath = sys.argv[1], sys.argv[2], sys.argv[3]
km = jupyter_client.KernelManager(kernel_name=name)
with open(errpath, "w") as err:
    km.start_kernel(stderr=err)
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=120)
proc = km.provisioner.process
out = {"pid": proc.pid}


def children(pid):
    kids = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/children") as f:
            kids += [int(x) for x in f.read().split()]
    return kids


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_exit(secs):
    t = time.time()
    while time.time() - t < secs:
        if proc.poll() is not None:
            return round(time.time() - t, 2)
        time.sleep(0.02)
    return None


def run(code):
    return kc.execute_interactive(code, timeout=120, output_hook=lambda m: None)["content"]


try:
    if case == "pg":
        # The embedded PostgreSQL server: an interrupt leaves it running,
        # the kernel's exit on SIGTERM ends it.
        r = run('import "github.com/veclab/veclab/lab/experiment"\n'
                'env, err := experiment.NewEnv(experiment.Small, 1)\nif err != nil {\n\tpanic(err)\n}\n'
                'if err := env.UsePG("embedded"); err != nil {\n\tpanic(err)\n}')
        out["start"] = r["status"]
        out["start_error"] = r.get("evalue")
        kids = children(proc.pid)
        out["children"] = len(kids)
        kc.execute('import "time"\ntime.Sleep(time.Hour)')
        time.sleep(1)
        km.interrupt_kernel()  # SIGINT to the process group
        time.sleep(1.5)
        out["pg_after_interrupt"] = all(alive(k) for k in kids) and len(kids) > 0
        out["alive_after_interrupt"] = proc.poll() is None
        r = run('env.PG != nil')
        out["after_interrupt"] = r["status"]
        kc.execute('time.Sleep(time.Hour)')
        time.sleep(1)
        km.signal_kernel(signal.SIGTERM)  # the process group, as finish_shutdown does
        out["exit_s"] = wait_exit(5)
        out["code"] = proc.returncode
        t = time.time()
        while any(alive(k) for k in kids) and time.time() - t < 10:
            time.sleep(0.1)
        out["pg_gone"] = not any(alive(k) for k in kids)
    elif case == "term":
        # SIGTERM while a cell sleeps: the kernel stops the cell and exits.
        kc.execute('import "time"\ntime.Sleep(time.Hour)')
        time.sleep(1)
        km.signal_kernel(signal.SIGTERM)
        out["exit_s"] = wait_exit(5)
        out["code"] = proc.returncode
    elif case == "shutdown":
        # jupyter_client's own shutdown (shutdown_request, then SIGTERM
        # after half of shutdown_wait_time, then SIGKILL) while a cell runs
        # a compiled loop: the kernel exits on the request.
        kc.execute('import "github.com/veclab/veclab/lab/dataset"\nfor {\n'
                   '\tdataset.Generate(dataset.Config{N: 100000, Dim: 384, Clusters: 40, Queries: 1})\n}')
        time.sleep(1.5)
        t = time.time()
        km.shutdown_kernel(now=False)
        out["exit_s"] = round(time.time() - t, 2)
        out["code"] = proc.returncode
    elif case == "quit":
        # SIGQUIT with output pending: a goroutine dump in the log, exit 2.
        kc.execute('import "time"\nfor i := 0; i < 300; i++ {\n\tgo func() { time.Sleep(time.Hour) }()\n}\n'
                   'time.Sleep(time.Hour)')
        time.sleep(1)
        os.kill(proc.pid, signal.SIGQUIT)
        out["exit_s"] = wait_exit(10)
        out["code"] = proc.returncode
finally:
    kc.stop_channels()
    if proc.poll() is None:
        km.shutdown_kernel(now=True)
        out["killed"] = True
with open(errpath) as f:
    text = f.read()
out["goroutines"] = text.count("\ngoroutine ")
out["quit_logged"] = "SIGQUIT: goroutine dump" in text
out["stderr"] = text[-20000:]
print(json.dumps(out))
