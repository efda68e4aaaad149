#!/usr/bin/python3
"""FAISS product-quantization peer for `veclab bench pq`.

Reads base/query vectors (.fvecs) and ground truth (.ivecs); for each M
trains IndexPQ(d, M, nbits) and IndexIVFPQ(quantizer, d, nlist, M, nbits)
single-threaded (under inner product a second IndexIVFPQ too, its cells
from L2 k-means as veclab's), adds the base, searches every query (after an untimed
warm-up) and prints one JSON object on stdout: training time (wall and
process CPU), code size, recall@k and QPS (wall and CPU) per index and, for
IVF-PQ, per nprobe.

Run with Debian's interpreter, which sees python3-faiss:
    /usr/bin/python3 bench/peers/faiss/pq.py --base b.fvecs --query q.fvecs \
        --gt gt.ivecs --m 8,16,32 --nbits 8 --nlist 173 --nprobe 1,4,16 --metric cosine

Debian's python3-faiss 1.7.3 is a generic x86-64 build (compile options
"OPTIMIZE GENERIC": no AVX2 kernels in FAISS itself; BLAS calls, which
FAISS's k-means uses, go to the system OpenBLAS, which picks its own
kernels at run time). The JSON says so.
"""
import argparse
import json
import os
import sys
import time

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import numpy as np  # noqa: E402
import faiss  # noqa: E402


def read_fvecs(path):
    raw = np.fromfile(path, dtype=np.int32)
    if raw.size == 0:
        sys.exit(f"faiss pq peer: {path}: empty file")
    dim = int(raw[0])
    if dim <= 0 or raw.size % (dim + 1) != 0:
        sys.exit(f"faiss pq peer: {path}: not an .fvecs file (dim {dim}, {raw.size} words)")
    rows = raw.reshape(-1, dim + 1)
    if not (rows[:, 0] == dim).all():
        sys.exit(f"faiss pq peer: {path}: rows of differing dimension")
    return np.ascontiguousarray(rows[:, 1:].view(np.float32))


def read_ivecs(path):
    raw = np.fromfile(path, dtype=np.int32)
    dim = int(raw[0])
    if dim <= 0 or raw.size % (dim + 1) != 0:
        sys.exit(f"faiss pq peer: {path}: not an .ivecs file")
    return raw.reshape(-1, dim + 1)[:, 1:]


def recall(I, gt, k):
    hits = 0
    for row, truth in zip(I, gt):
        hits += len(set(row[:k].tolist()) & set(truth[:k].tolist()))
    return hits / (len(I) * k)


def timed_search(index, xq, gt, k, warmup, passes):
    """Times `passes` searches of every query and keeps the fastest pass
    by each clock (a loaded machine only ever slows a pass down)."""
    index.search(xq[:warmup], k)
    best_el = best_cpu = None
    I = None
    for _ in range(max(1, passes)):
        c0, t0 = time.process_time(), time.perf_counter()
        _, I = index.search(xq, k)
        el, cpu = time.perf_counter() - t0, time.process_time() - c0
        best_el = el if best_el is None else min(best_el, el)
        best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
    return {"recall": recall(I, gt, k), "qps": len(xq) / best_el,
            "cpu_qps": len(xq) / best_cpu if best_cpu > 0 else 0.0}


def timed_train(index, xb):
    c0, t0 = time.process_time(), time.perf_counter()
    index.train(xb)
    train = (time.perf_counter() - t0, time.process_time() - c0)
    t0 = time.perf_counter()
    index.add(xb)
    return train, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--query", required=True)
    ap.add_argument("--gt", required=True)
    ap.add_argument("--m", default="8,16,32")
    ap.add_argument("--nbits", type=int, default=8)
    ap.add_argument("--nlist", type=int, default=0, help="0: no IndexIVFPQ")
    ap.add_argument("--nprobe", default="1,4,16")
    ap.add_argument("--niter", type=int, default=25, help="k-means iterations, sub-spaces and coarse")
    ap.add_argument("--metric", default="cosine", choices=["cosine", "dot", "l2"])
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--passes", type=int, default=1, help="timed passes per search; the fastest is kept")
    a = ap.parse_args()

    faiss.omp_set_num_threads(1)
    xb, xq, gt = read_fvecs(a.base), read_fvecs(a.query), read_ivecs(a.gt)
    if xb.shape[1] != xq.shape[1]:
        sys.exit(f"faiss pq peer: base dim {xb.shape[1]} != query dim {xq.shape[1]}")
    if gt.shape[1] < a.k:
        sys.exit(f"faiss pq peer: ground truth has {gt.shape[1]} neighbours, need {a.k}")
    d = xb.shape[1]
    # veclab writes unit vectors for cosine; inner product on them is cosine.
    metric = faiss.METRIC_L2 if a.metric == "l2" else faiss.METRIC_INNER_PRODUCT
    warmup = min(a.warmup, len(xq))
    result = {
        "faiss_version": faiss.__version__,
        "compile_options": faiss.get_compile_options(),
        "note": "Debian python3-faiss: generic x86-64 build, no AVX2 kernels in FAISS itself; single-threaded",
        "n": int(xb.shape[0]), "queries": int(xq.shape[0]), "dim": d,
        "nbits": a.nbits, "nlist": a.nlist, "niter": a.niter, "k": a.k, "metric": a.metric, "passes": a.passes,
        "indexes": [],
    }
    for m in [int(x) for x in a.m.split(",") if x]:
        if d % m:
            sys.exit(f"faiss pq peer: M = {m} does not divide the dimension {d}")
        pq = faiss.IndexPQ(d, m, a.nbits, metric)
        pq.pq.cp.niter = a.niter
        pq.pq.cp.seed = a.seed
        (tw, tc), add_s = timed_train(pq, xb)
        pt = timed_search(pq, xq, gt, a.k, warmup, a.passes)
        pt["nprobe"] = 0
        result["indexes"].append({"name": "IndexPQ", "m": m, "train_s": tw, "train_cpu_s": tc, "add_s": add_s,
                                  "code_size": int(pq.pq.code_size), "sweep": [pt]})
        if a.nlist <= 0:
            continue
        variants = [("IndexIVFPQ", False)]
        if metric != faiss.METRIC_L2:
            # Under inner product IndexIVF trains its cells with k-means
            # that assigns by the IndexFlatIP quantizer (largest inner
            # product; faiss/IndexIVF.cpp Level1Quantizer::train_q1), not
            # by L2 as the paper and veclab do. The like-for-like variant
            # takes its cells from faiss.Kmeans (L2) and trains the rest.
            variants.append(("IndexIVFPQ(L2 k-means cells)", True))
        for name, l2cells in variants:
            quantizer = faiss.IndexFlatL2(d) if metric == faiss.METRIC_L2 else faiss.IndexFlatIP(d)
            ivf = faiss.IndexIVFPQ(quantizer, d, a.nlist, m, a.nbits, metric)
            ivf.cp.niter = a.niter
            ivf.cp.seed = a.seed
            ivf.pq.cp.niter = a.niter
            ivf.pq.cp.seed = a.seed
            c0, t0 = time.process_time(), time.perf_counter()
            if l2cells:
                km = faiss.Kmeans(d, a.nlist, niter=a.niter, seed=a.seed, max_points_per_centroid=256, verbose=False)
                km.train(xb)
                quantizer.add(km.centroids)  # trained quantizer: IndexIVF.train keeps its cells
            ivf.train(xb)
            tw, tc = time.perf_counter() - t0, time.process_time() - c0
            t0 = time.perf_counter()
            ivf.add(xb)
            add_s = time.perf_counter() - t0
            sweep = []
            for p in [int(x) for x in a.nprobe.split(",") if x]:
                ivf.nprobe = p
                pt = timed_search(ivf, xq, gt, a.k, warmup, a.passes)
                pt["nprobe"] = p
                sweep.append(pt)
            result["indexes"].append({"name": name, "m": m, "train_s": tw, "train_cpu_s": tc, "add_s": add_s,
                                      "code_size": int(ivf.code_size), "sweep": sweep})
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
