#!/usr/bin/python3
"""FAISS batch-search peer for `veclab bench batch`.

Reads base/query vectors (.fvecs) and ground truth (.ivecs), builds
IndexFlatIP (IndexFlatL2 for l2) and IndexIVFFlat with the given nlist and
k-means iterations, and for each client count c starts c Python threads
together, each calling index.search on its 1/c share of the queries (FAISS
releases the GIL inside search and runs each call on its OpenMP pool of
--threads threads); QPS is all queries over the wall time until every
client is done, over at least three passes and --min-seconds; best_qps is
that of the fastest pass, cpu_qps all queries over the process CPU time of
the passes. Prints one JSON object.

Debian's python3-faiss 1.7.3 is a generic x86-64 build (compile options
"OPTIMIZE GENERIC": no AVX2/AVX-512 kernels in FAISS itself; IndexFlat's
batch search calls the system OpenBLAS sgemm, which picks its own kernels
at run time). The JSON says so.
"""
import argparse
import json
import os
import sys
import threading
import time

import numpy as np  # noqa: E402
import faiss  # noqa: E402


def read_vecs(path, dtype):
    raw = np.fromfile(path, dtype=np.int32)
    if raw.size == 0:
        sys.exit(f"faiss peer: {path}: empty file")
    dim = int(raw[0])
    if dim <= 0 or raw.size % (dim + 1) != 0:
        sys.exit(f"faiss peer: {path}: not a TEXMEX file (dim {dim}, {raw.size} words)")
    rows = raw.reshape(-1, dim + 1)
    return np.ascontiguousarray(rows[:, 1:].view(dtype))


def recall(I, gt, k):
    hits = 0
    for row, truth in zip(I, gt):
        hits += len(set(row[:k].tolist()) & set(truth[:k].tolist()))
    return hits / (len(I) * k)


def run_clients(index, xq, k, clients, min_seconds):
    n = len(xq)
    parts = [(j * n // clients, (j + 1) * n // clients) for j in range(clients)]
    out = np.zeros((n, k), dtype=np.int64)

    def client(lo, hi):
        _, I = index.search(xq[lo:hi], k)
        out[lo:hi] = I

    elapsed, passes, fastest = 0.0, 0, float("inf")
    c0 = time.process_time()  # all threads of the process
    while passes < 3 or elapsed < min_seconds:
        ts = [threading.Thread(target=client, args=p) for p in parts]
        t0 = time.perf_counter()
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        el = time.perf_counter() - t0
        elapsed += el
        fastest = min(fastest, el)
        passes += 1
    cpu = time.process_time() - c0
    return passes * n / elapsed, n / fastest, passes * n / cpu if cpu > 0 else 0.0, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--query", required=True)
    ap.add_argument("--gt", required=True)
    ap.add_argument("--nlist", type=int, required=True)
    ap.add_argument("--niter", type=int, default=10)
    ap.add_argument("--nprobe", default="1,2,4,8,16")
    ap.add_argument("--clients", default="1,2,4,8")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--metric", default="cosine", choices=["cosine", "dot", "l2"])
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--min-seconds", type=float, default=0.3)
    a = ap.parse_args()

    faiss.omp_set_num_threads(a.threads)
    xb, xq = read_vecs(a.base, np.float32), read_vecs(a.query, np.float32)
    gt = read_vecs(a.gt, np.int32)
    if gt.shape[1] < a.k:
        sys.exit(f"faiss peer: ground truth has {gt.shape[1]} neighbours, need {a.k}")
    d = xb.shape[1]
    if a.metric == "cosine":
        faiss.normalize_L2(xb)
        faiss.normalize_L2(xq)
    metric = faiss.METRIC_L2 if a.metric == "l2" else faiss.METRIC_INNER_PRODUCT
    clients = [int(c) for c in a.clients.split(",") if c]
    nprobes = [int(p) for p in a.nprobe.split(",") if p]

    res = {"faiss_version": faiss.__version__, "compile_options": faiss.get_compile_options(),
           "note": "Debian python3-faiss: generic x86-64 build, no AVX2/AVX-512 kernels in FAISS itself",
           "threads": a.threads, "flat": [], "ivf": []}
    flat = faiss.IndexFlatL2(d) if metric == faiss.METRIC_L2 else faiss.IndexFlatIP(d)
    flat.add(xb)
    for c in clients:
        qps, best, cpu, I = run_clients(flat, xq, a.k, c, a.min_seconds)
        res["flat"].append({"clients": c, "qps": qps, "best_qps": best, "cpu_qps": cpu, "recall": recall(I, gt, a.k)})
    quant = faiss.IndexFlatL2(d) if metric == faiss.METRIC_L2 else faiss.IndexFlatIP(d)
    ivf = faiss.IndexIVFFlat(quant, d, a.nlist, metric)
    ivf.cp.niter = a.niter
    ivf.cp.seed = a.seed
    ivf.cp.max_points_per_centroid = 256
    if metric != faiss.METRIC_L2:
        ivf.cp.spherical = True
    ivf.train(xb)
    ivf.add(xb)
    for c in clients:
        for p in nprobes:
            ivf.nprobe = p
            qps, best, cpu, I = run_clients(ivf, xq, a.k, c, a.min_seconds)
            res["ivf"].append({"clients": c, "nprobe": p, "qps": qps, "best_qps": best, "cpu_qps": cpu,
                               "recall": recall(I, gt, a.k)})
    json.dump(res, sys.stdout)
    print()


if __name__ == "__main__":
    main()
