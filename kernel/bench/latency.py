"""Measure a Jupyter kernel the way a front end sees it, through jupyter_client.

  start-up:   KernelManager.start_kernel() until the first kernel_info_reply
              (client.wait_for_ready), median over --starts runs
  round trip: execute_request of a trivial cell ("1+1") until the kernel's
              idle status for it, median over --cells runs (after 5 warm-ups),
              measured twice on the same kernel:
              - through jupyter_client's blocking client (what a front end
                sees; it includes the client's own cost per message, about
                0.25 ms here: HMAC check, four JSON decodes and two dateutil
                date parses for each of the four IOPub messages);
              - through raw pyzmq sockets that sign and send the request and
                read IOPub frames without decoding them (the kernel's own
                latency plus ZeroMQ's).

Usage (Debian's python, which has jupyter_client and ipykernel):

  T=$(mktemp -d) && go build -o "$T/veclab" ./cmd/veclab && "$T/veclab" install --prefix "$T/k"
  JUPYTER_PATH="$T/k/share/jupyter" /usr/bin/python3 kernel/bench/latency.py veclab ipykernel

"ipykernel" is a temporary kernelspec running Debian's python3-ipykernel with
/usr/bin/python3, so both kernels are started the same way. Prints a JSON
object per kernel and the ratios veclab/ipykernel.
"""
import argparse
import datetime
import hashlib
import hmac
import json
import os
import statistics
import sys
import tempfile
import time
import uuid

import zmq

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
    try:
        raw = raw_roundtrips(km.get_connection_info(), code, cells)
    finally:
        km.shutdown_kernel(now=False)
    return {"kernel": name, "startup_s_median": statistics.median(startup), "startup_s": startup,
            "roundtrip_ms_median": 1000 * statistics.median(rtt),
            "roundtrip_ms_p90": 1000 * statistics.quantiles(rtt, n=10)[-1], "cells": len(rtt),
            "raw_roundtrip_ms_median": 1000 * statistics.median(raw),
            "raw_roundtrip_ms_p90": 1000 * statistics.quantiles(raw, n=10)[-1]}


def raw_roundtrips(ci, code, cells):
    """Round trips of code through bare pyzmq DEALER/SUB sockets."""
    ctx = zmq.Context()
    addr = "%s://%s:" % (ci["transport"], ci["ip"])
    shell = ctx.socket(zmq.DEALER)
    shell.connect(addr + str(ci["shell_port"]))
    iopub = ctx.socket(zmq.SUB)
    iopub.setsockopt(zmq.SUBSCRIBE, b"")
    iopub.connect(addr + str(ci["iopub_port"]))
    key = ci["key"]
    key = key if isinstance(key, bytes) else key.encode()
    session = uuid.uuid4().hex

    def send(msg_type, content):
        header = {"msg_id": uuid.uuid4().hex, "session": session, "username": "bench",
                  "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                  "msg_type": msg_type, "version": "5.3"}
        frames = [json.dumps(x).encode() for x in (header, {}, {}, content)]
        sig = hmac.new(key, b"".join(frames), hashlib.sha256).hexdigest().encode()
        shell.send_multipart([b"<IDS|MSG>", sig] + frames)
        return header["msg_id"].encode()

    def until_idle(msg_id):
        while True:
            frames = iopub.recv_multipart()
            i = frames.index(b"<IDS|MSG>")
            if b'"idle"' in frames[i + 5] and msg_id in frames[i + 3]:
                return

    # The SUB socket's subscription needs a moment: repeat kernel_info
    # until its status shows on IOPub.
    while True:
        mid = send("kernel_info_request", {})
        shell.recv_multipart()
        if iopub.poll(500):
            until_idle(mid)
            break
    rtt = []
    for i in range(cells + 5):
        t0 = time.perf_counter()
        mid = send("execute_request", {"code": code, "silent": False, "store_history": True,
                                       "user_expressions": {}, "allow_stdin": False, "stop_on_error": True})
        until_idle(mid)
        dt = time.perf_counter() - t0
        shell.recv_multipart()
        if i >= 5:
            rtt.append(dt)
    shell.close(0)
    iopub.close(0)
    ctx.term()
    return rtt


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
                          "raw_roundtrip_ratio": v["raw_roundtrip_ms_median"] / p["raw_roundtrip_ms_median"],
                          "targets": {"startup_ratio": 0.5, "roundtrip_ratio": 0.3}}))


if __name__ == "__main__":
    main()
