#!/usr/bin/python3
"""FAISS HNSW peer for `veclab bench hnsw -peer faiss`.

Reads base/query vectors (.fvecs) and ground truth (.ivecs) and builds
IndexHNSWFlat, or IndexHNSWSQ with an 8-bit scalar quantizer (QT_8bit,
trained on the base vectors) with --index sq8, at the given M (FAISS's
level 0 holds 2·M neighbours, as hnswlib's) and efConstruction, once per
thread count of --threads (FAISS's add runs on its OpenMP pool of that many
threads); the first build is searched. Cosine normalises the vectors and
uses METRIC_INNER_PRODUCT.

Each ef is timed as FAISS is used: one index.search call over all the
queries, on one OpenMP thread (a Python call per query would time Python,
not FAISS), repeated until --min-seconds; QPS is queries over the wall time
(--timing wall) or over the fastest pass (--timing best). Latency per
query is not observable this way: p50_us is the mean of the fastest pass.
dist_comps is FAISS's distance counter per query (hnsw_stats: ndis, or in
1.7.3 n3, the distances of the level-0 beam search; the greedy descent
through the upper levels is not counted).

Debian's python3-faiss 1.7.3 is a generic x86-64 build (compile options
"OPTIMIZE GENERIC": no AVX2/AVX-512 kernels in FAISS itself): every figure
of this peer says so.

--serve: prints the build line, then one {"search": [...]} line per
"sweep" line of standard input (see bench/peers/common/harness.hpp).
"""
import argparse
import json
import sys
import time

import numpy as np  # noqa: E402
import faiss  # noqa: E402


def read_vecs(path, dtype):
    raw = np.fromfile(path, dtype=np.int32)
    if raw.size == 0:
        sys.exit(f"faiss hnsw peer: {path}: empty file")
    dim = int(raw[0])
    if dim <= 0 or raw.size % (dim + 1) != 0:
        sys.exit(f"faiss hnsw peer: {path}: not a TEXMEX file (dim {dim}, {raw.size} words)")
    rows = raw.reshape(-1, dim + 1)
    return np.ascontiguousarray(rows[:, 1:].view(dtype))


def recall(I, gt, k):
    hits = 0
    for row, truth in zip(I, gt):
        hits += len(set(row[:k].tolist()) & set(truth[:k].tolist()))
    return hits / (len(I) * k)


def ints(s):
    return [int(x) for x in s.split(",") if x]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--query", required=True)
    ap.add_argument("--gt", required=True)
    ap.add_argument("--metric", default="cosine", choices=["cosine", "dot", "ip", "l2"])
    ap.add_argument("--index", default="flat", choices=["flat", "sq8"])
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--efc", type=int, default=64)
    ap.add_argument("--threads", default="1")
    ap.add_argument("--ef", default="10,20,40,64,100,200,400")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--min-seconds", type=float, default=0.3)
    ap.add_argument("--timing", default="wall", choices=["wall", "best"])
    ap.add_argument("--serve", action="store_true")
    a = ap.parse_args()

    xb = read_vecs(a.base, np.float32)
    xq = read_vecs(a.query, np.float32)
    gt = read_vecs(a.gt, np.int32)
    if xb.shape[1] != xq.shape[1]:
        sys.exit("faiss hnsw peer: query and base dimensions differ")
    if len(gt) != len(xq) or gt.shape[1] < a.k:
        sys.exit(f"faiss hnsw peer: truth has {len(gt)} rows of {gt.shape[1]}, want {len(xq)} of ≥ {a.k}")
    d = xb.shape[1]
    metric = faiss.METRIC_L2
    if a.metric == "cosine":
        faiss.normalize_L2(xb)
        faiss.normalize_L2(xq)
    if a.metric != "l2":
        metric = faiss.METRIC_INNER_PRODUCT

    builds, searched = [], None
    for bi, nt in enumerate(ints(a.threads)):
        faiss.omp_set_num_threads(max(1, nt))
        if a.index == "flat":
            index = faiss.IndexHNSWFlat(d, a.m, metric)
        else:
            index = faiss.IndexHNSWSQ(d, faiss.ScalarQuantizer.QT_8bit, a.m, metric)
        index.hnsw.efConstruction = a.efc
        t0, c0 = time.perf_counter(), time.process_time()
        if a.index == "sq8":
            index.train(xb)
        index.add(xb)
        builds.append({"threads": nt, "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0})
        if bi == 0:
            searched = index
    index = searched
    n = index.ntotal
    h = index.hnsw
    # codes + the neighbour table (int32 per slot) + per-node offsets
    # (size_t) and levels (int32)
    graph = faiss.vector_to_array(h.neighbors).nbytes + faiss.vector_to_array(h.offsets).nbytes + faiss.vector_to_array(h.levels).nbytes
    bpv = (index.storage.sa_code_size() * n + graph) / n if hasattr(index.storage, "sa_code_size") else 0
    if a.index == "flat":
        bpv = (4 * d * n + graph) / n

    faiss.omp_set_num_threads(1)
    efs = ints(a.ef)

    def sweep():
        out = []
        for ef in efs:
            index.hnsw.efSearch = ef
            index.search(xq[:20], a.k)  # warm-up
            faiss.cvar.hnsw_stats.reset()
            passes, elapsed, fastest, I0 = 0, 0.0, float("inf"), None
            while passes < (3 if a.timing == "best" else 1) or elapsed < a.min_seconds:
                t0 = time.perf_counter()
                _, I = index.search(xq, a.k)
                el = time.perf_counter() - t0
                if I0 is None:
                    I0 = I
                    st = faiss.cvar.hnsw_stats
                    ndis = st.ndis or st.n3  # 1.7.3 counts the beam's distances in n3
                elapsed += el
                fastest = min(fastest, el)
                passes += 1
            qps = passes * len(xq) / elapsed if a.timing == "wall" else len(xq) / fastest
            out.append({"ef": ef, "recall": recall(I0, gt, a.k), "qps": qps,
                        "p50_us": fastest / len(xq) * 1e6, "p95_us": 0, "dist_comps": ndis / len(xq)})
        return out

    head = {"peer": "faiss", "index": "IndexHNSWFlat" if a.index == "flat" else "IndexHNSWSQ(QT_8bit)",
            "version": faiss.__version__, "kernels": faiss.get_compile_options(),
            "note": "Debian python3-faiss: generic x86-64 build, no AVX2 kernels in FAISS",
            "n": n, "dim": d, "queries": len(xq), "m": a.m, "efc": a.efc, "k": a.k,
            "bytes_per_vector": bpv, "builds": builds}
    if a.serve:
        print(json.dumps(head), flush=True)
        for line in sys.stdin:
            if line.strip() != "sweep":
                sys.exit(f"faiss hnsw peer: serve: unknown request {line.strip()!r} (want sweep)")
            print(json.dumps({"search": sweep()}), flush=True)
        return
    head["search"] = sweep()
    print(json.dumps(head))


if __name__ == "__main__":
    main()
