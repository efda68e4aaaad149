#!/usr/bin/python3
"""FAISS IVF peer for `veclab bench ivf`.

Reads base/query vectors (.fvecs) and ground truth (.ivecs), trains
IndexIVFFlat and IndexIVFScalarQuantizer(QT_8bit) with the same nlist and
k-means iterations as veclab, single-threaded, sweeps nprobe and prints one
JSON object on stdout: training time, k-means-only time, and recall@k and
QPS per nprobe, each as wall time and as process CPU time (the CPU figures
stay comparable when other jobs load the machine).

Run with Debian's interpreter, which sees python3-faiss:
    /usr/bin/python3 bench/peers/faiss/ivf.py --base b.fvecs --query q.fvecs \
        --gt gt.ivecs --nlist 78 --niter 10 --nprobe 1,2,4,8 --metric cosine

Debian's python3-faiss 1.7.3 is a generic x86-64 build (compile options
"OPTIMIZE GENERIC": no AVX2 kernels in FAISS itself; BLAS calls go to the
system OpenBLAS, which picks its own kernels at run time). The JSON says so.
"""
import argparse
import json
import os
import sys
import time

# One thread everywhere: OpenBLAS has its own pool besides OpenMP.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import numpy as np  # noqa: E402
import faiss  # noqa: E402


def read_fvecs(path):
    raw = np.fromfile(path, dtype=np.int32)
    if raw.size == 0:
        sys.exit(f"faiss peer: {path}: empty file")
    dim = int(raw[0])
    if dim <= 0 or raw.size % (dim + 1) != 0:
        sys.exit(f"faiss peer: {path}: not an .fvecs file (dim {dim}, {raw.size} words)")
    rows = raw.reshape(-1, dim + 1)
    if not (rows[:, 0] == dim).all():
        sys.exit(f"faiss peer: {path}: rows of differing dimension")
    return np.ascontiguousarray(rows[:, 1:].view(np.float32))


def read_ivecs(path):
    raw = np.fromfile(path, dtype=np.int32)
    dim = int(raw[0])
    if dim <= 0 or raw.size % (dim + 1) != 0:
        sys.exit(f"faiss peer: {path}: not an .ivecs file")
    return raw.reshape(-1, dim + 1)[:, 1:]


def recall(I, gt, k):
    hits = 0
    for row, truth in zip(I, gt):
        hits += len(set(row[:k].tolist()) & set(truth[:k].tolist()))
    return hits / (len(I) * k)


def sweep(index, xq, gt, k, nprobes, warmup):
    out = []
    for p in nprobes:
        index.nprobe = p
        index.search(xq[:warmup], k)
        c0, t0 = time.process_time(), time.perf_counter()
        _, I = index.search(xq, k)
        el, cpu = time.perf_counter() - t0, time.process_time() - c0
        out.append({"nprobe": p, "recall": recall(I, gt, k), "qps": len(xq) / el,
                    "cpu_qps": len(xq) / cpu if cpu > 0 else 0.0})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--query", required=True)
    ap.add_argument("--gt", required=True)
    ap.add_argument("--nlist", type=int, required=True)
    ap.add_argument("--niter", type=int, default=10)
    ap.add_argument("--nprobe", default="1,2,4,8,16,32")
    ap.add_argument("--metric", default="cosine", choices=["cosine", "dot", "l2"])
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--warmup", type=int, default=20)
    a = ap.parse_args()

    faiss.omp_set_num_threads(1)
    xb, xq, gt = read_fvecs(a.base), read_fvecs(a.query), read_ivecs(a.gt)
    if xb.shape[1] != xq.shape[1]:
        sys.exit(f"faiss peer: base dim {xb.shape[1]} != query dim {xq.shape[1]}")
    if gt.shape[1] < a.k:
        sys.exit(f"faiss peer: ground truth has {gt.shape[1]} neighbours, need {a.k}")
    d = xb.shape[1]
    # veclab writes unit vectors for cosine; inner product on them is cosine.
    metric = faiss.METRIC_L2 if a.metric == "l2" else faiss.METRIC_INNER_PRODUCT
    nprobes = [int(p) for p in a.nprobe.split(",") if p]

    # k-means alone, same iterations and sample cap as the IVF training.
    km = faiss.Kmeans(d, a.nlist, niter=a.niter, seed=a.seed, spherical=(metric != faiss.METRIC_L2),
                      max_points_per_centroid=256, verbose=False)
    c0, t0 = time.process_time(), time.perf_counter()
    km.train(xb)
    kmeans_s, kmeans_cpu_s = time.perf_counter() - t0, time.process_time() - c0

    result = {
        "faiss_version": faiss.__version__,
        "compile_options": faiss.get_compile_options(),
        "note": "Debian python3-faiss: generic x86-64 build, no AVX2 kernels in FAISS itself; single-threaded",
        "n": int(xb.shape[0]), "queries": int(xq.shape[0]), "dim": d,
        "nlist": a.nlist, "niter": a.niter, "k": a.k, "metric": a.metric,
        "kmeans_s": kmeans_s, "kmeans_cpu_s": kmeans_cpu_s,
        "indexes": [],
    }
    builders = [
        ("IndexIVFFlat", lambda q: faiss.IndexIVFFlat(q, d, a.nlist, metric)),
        ("IndexIVFScalarQuantizer(QT_8bit)",
         lambda q: faiss.IndexIVFScalarQuantizer(q, d, a.nlist, faiss.ScalarQuantizer.QT_8bit, metric)),
    ]
    for name, make in builders:
        quantizer = faiss.IndexFlatL2(d) if metric == faiss.METRIC_L2 else faiss.IndexFlatIP(d)
        index = make(quantizer)
        index.cp.niter = a.niter
        index.cp.seed = a.seed
        c0, t0 = time.process_time(), time.perf_counter()
        index.train(xb)
        train_s, train_cpu_s = time.perf_counter() - t0, time.process_time() - c0
        t0 = time.perf_counter()
        index.add(xb)
        add_s = time.perf_counter() - t0
        result["indexes"].append({
            "name": name, "train_s": train_s, "train_cpu_s": train_cpu_s, "add_s": add_s,
            "code_size": int(index.code_size),
            "sweep": sweep(index, xq, gt, a.k, nprobes, min(a.warmup, len(xq))),
        })
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
