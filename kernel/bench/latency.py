"""Measure a Jupyter kernel the way a front end sees it, through jupyter_client.

  start-up:   KernelManager.start_kernel() until the first kernel_info_reply
              (client.wait_for_ready), median over --starts runs
  round trip: execute_request of a trivial cell ("1+1") until the kernel's
              idle status for it, median over --cells runs (after 5 warm-ups)

Usage (Debian's python, which has jupyter_client and ipykernel):

  T=$(mktemp -d) && go build -o "$T/veclab" ./cmd/veclab && "$T/veclab" install --prefix "$T/k"
  JUPYTER_PATH="$T/k/share/jupyter" /usr/bin/python3 kernel/bench/latency.py veclab ipykernel

"ipykernel" is a temporary kernelspec running Debian's python3-ipykernel with
/usr/bin/python3, so both kernels are started the same way. Prints a JSON
object per kernel and the ratios veclab/ipykernel.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from jupyter_client import KernelManager
from jupyter_client.kernelspec import KernelSpecManager


def ipykernel_spec_dir():
    d = tempfile.mkdtemp(prefix="ipyk-spec")
    k = os.path.join(d, "kernels", "ipykernel")
    os.makedirs(k)
    with open(os.path.join(k, "kernel.json"), "w") as f:
        json.dump({"argv": ["/usr/bin/python3", "-Xfrozen_modules=off", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                   "display_name": "Python 3 (Debian ipykernel)", "language": "python", "interrupt_mode": "signal",
                   "env": {"PYDEVD_DISABLE_FILE_VALIDATION": "1"}}, f)
    return d


def measure(name, code, starts, cells):
    startup = []
    for _ in range(starts):
        km = KernelManager(kernel_name=name)
        t0 = time.perf_counter()
        km.start_kernel()
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=120)
        startup.append(time.perf_counter() - t0)
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    km = KernelManager(kernel_name=name)
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=120)
    rtt = []
    for i in range(cells + 5):
        t0 = time.perf_counter()
        msg_id = kc.execute(code)
        while True:
            m = kc.get_iopub_msg(timeout=30)
            if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "status" \
                    and m["content"]["execution_state"] == "idle":
                break
        dt = time.perf_counter() - t0
        kc.get_shell_msg(timeout=30)
        if i >= 5:
            rtt.append(dt)
    kc.stop_channels()
    km.shutdown_kernel(now=False)
    return {"kernel": name, "startup_s_median": statistics.median(startup), "startup_s": startup,
            "roundtrip_ms_median": 1000 * statistics.median(rtt),
            "roundtrip_ms_p90": 1000 * statistics.quantiles(rtt, n=10)[-1], "cells": len(rtt)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="+")
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--cells", type=int, default=50)
    a = ap.parse_args()
    if "ipykernel" in a.kernels:
        os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [ipykernel_spec_dir(), os.environ.get("JUPYTER_PATH")]))
    known = KernelSpecManager().find_kernel_specs()
    res = {}
    for k in a.kernels:
        if k not in known:
            sys.exit("no kernelspec %r (have %s)" % (k, ", ".join(sorted(known))))
        res[k] = measure(k, "1+1", a.starts, a.cells)
        print(json.dumps(res[k]), flush=True)
    if "veclab" in res and "ipykernel" in res:
        v, p = res["veclab"], res["ipykernel"]
        print(json.dumps({"startup_ratio": v["startup_s_median"] / p["startup_s_median"],
                          "roundtrip_ratio": v["roundtrip_ms_median"] / p["roundtrip_ms_median"],
                          "targets": {"startup_ratio": 0.5, "roundtrip_ratio": 0.3}}))


if __name__ == "__main__":
    main()
