// flat_bench: the C peer of `veclab bench flat`: exact search written as the
// plain loop a C programmer would write, compiled with g++ -O3
// -march=native -mprefer-vector-width=512 (build.sh), so the compiler's own
// AVX-512 vectorisation of the dot product is what is measured.
//
// It reads base and query .fvecs files (normalised for cosine), then alternates, for at least -min-seconds and 21 rounds,
// one pass streaming the slab (stream below, as veclab's flat.Stream) and
// one exact top-k search (inner product, or squared L2 with
// -metric l2) of the next query, and prints JSON: the median pass and the
// median query in milliseconds, the median over rounds of query / pass
// (each round's two timings see the same machine), the same by the thread's
// CPU time, the fastest of each, and
// the ids found for the first query (nearest first), so the caller can
// check the answer.
//
// Usage: flat_bench -base base.fvecs -query query.fvecs [-metric cosine|dot|l2] [-k 10] [-min-seconds 0.3]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

std::vector<float> readFvecs(const std::string &path, size_t &n, size_t &dim) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error(path + ": cannot open");
    std::vector<float> out;
    n = 0;
    dim = 0;
    for (;;) {
        int32_t d;
        if (!f.read(reinterpret_cast<char *>(&d), 4)) break;
        if (d <= 0 || (dim && size_t(d) != dim)) throw std::runtime_error(path + ": bad dimension at record " + std::to_string(n));
        dim = size_t(d);
        out.resize((n + 1) * dim);
        if (!f.read(reinterpret_cast<char *>(out.data() + n * dim), dim * 4)) throw std::runtime_error(path + ": truncated");
        n++;
    }
    if (n == 0) throw std::runtime_error(path + ": empty");
    return out;
}

// score is the plain loop: the omp simd pragma only licenses the
// reassociation that vectorises the sum (no -ffast-math).
inline float dot(const float *a, const float *b, size_t dim) {
    float s = 0;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < dim; j++) s += a[j] * b[j];
    return s;
}

inline float l2sq(const float *a, const float *b, size_t dim) {
    float s = 0;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < dim; j++) {
        float d = a[j] - b[j];
        s += d * d;
    }
    return s;
}

// search keeps the k best in a sorted array, with the usual threshold test
// before the insertion; ties keep the lower id (rows arrive in id order).
std::vector<std::pair<float, uint32_t>> search(const std::vector<float> &base, size_t n, size_t dim, const float *q, size_t k, bool l2) {
    std::vector<std::pair<float, uint32_t>> top;
    top.reserve(k + 1);
    float worst = 1e30f;
    for (size_t i = 0; i < n; i++) {
        const float *x = base.data() + i * dim;
        float d = l2 ? l2sq(q, x, dim) : -dot(q, x, dim);
        if (top.size() < k || d < worst) {
            auto at = std::upper_bound(top.begin(), top.end(), std::make_pair(d, uint32_t(i)));
            top.insert(at, {d, uint32_t(i)});
            if (top.size() > k) top.pop_back();
            if (top.size() == k) worst = top.back().first;
        }
    }
    return top;
}

// stream reads the slab once, as veclab's flat.Stream does: the dot
// product of each 16 KB chunk with itself (the second operand is an L1
// hit), so the loop is bound by memory.
float stream(const std::vector<float> &base) {
    const size_t chunk = 4096;
    float s = 0;
    for (size_t i = 0; i < base.size(); i += chunk) {
        size_t m = std::min(chunk, base.size() - i);
        s += dot(base.data() + i, base.data() + i, m);
    }
    return s;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
    std::string basePath, queryPath, metric = "cosine";
    size_t k = 10;
    double minSeconds = 0.3;
    try {
        for (int i = 1; i < argc; i++) {
            std::string a = argv[i];
            auto next = [&]() -> std::string {
                if (i + 1 >= argc) throw std::runtime_error("flag " + a + " needs a value");
                return argv[++i];
            };
            if (a == "-base") basePath = next();
            else if (a == "-query") queryPath = next();
            else if (a == "-metric") metric = next();
            else if (a == "-k") k = std::stoul(next());
            else if (a == "-min-seconds") minSeconds = std::stod(next());
            else throw std::runtime_error("unknown flag " + a);
        }
        if (basePath.empty() || queryPath.empty()) throw std::runtime_error("-base and -query are required");
        if (metric != "cosine" && metric != "dot" && metric != "l2") throw std::runtime_error("unknown metric " + metric);
        size_t n, dim, nq, qdim;
        std::vector<float> base = readFvecs(basePath, n, dim), query = readFvecs(queryPath, nq, qdim);
        if (qdim != dim) throw std::runtime_error("query and base dimensions differ");
        bool l2 = metric == "l2";
        if (metric == "cosine") {  // unit vectors: inner product is cosine
            for (auto *v : {&base, &query}) {
                for (size_t i = 0; i * dim < v->size(); i++) {
                    float *x = v->data() + i * dim;
                    float s = std::sqrt(dot(x, x, dim));
                    if (s > 0)
                        for (size_t j = 0; j < dim; j++) x[j] /= s;
                }
            }
        }
        std::vector<double> passes, queries, ratios, cpuRatios;
        auto threadCPU = []() {  // CLOCK_THREAD_CPUTIME_ID: leaves out time other processes held the core
            timespec ts;
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
            return ts.tv_sec + ts.tv_nsec * 1e-9;
        };
        double total = 0, sink = 0;
        for (size_t r = 0; total < minSeconds || r < 21; r++) {
            double c0 = threadCPU();
            auto t0 = Clock::now();
            sink += stream(base);
            auto t1 = Clock::now();
            double c1 = threadCPU();
            auto top = search(base, n, dim, query.data() + (r % nq) * dim, k, l2);
            auto t2 = Clock::now();
            double c2 = threadCPU();
            if (c1 > c0) cpuRatios.push_back((c2 - c1) / (c1 - c0));
            sink += top[0].first;
            passes.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
            queries.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
            ratios.push_back(queries.back() / passes.back());
            total += queries.back() / 1e3;
        }
        auto first = search(base, n, dim, query.data(), k, l2);
        std::string ids;
        for (size_t j = 0; j < first.size(); j++) ids += (j ? "," : "") + std::to_string(first[j].second);
        std::printf("{\"peer\":\"c\",\"n\":%zu,\"dim\":%zu,\"rounds\":%zu,\"stream_ms\":%.4f,\"query_ms\":%.4f,\"pair_ratio\":%.4f,"
                    "\"fastest_stream_ms\":%.4f,\"fastest_query_ms\":%.4f,\"cpu_pair_ratio\":%.4f,\"first_ids\":[%s],\"sink\":%g}\n",
                    n, dim, queries.size(), median(passes), median(queries), median(ratios),
                    *std::min_element(passes.begin(), passes.end()), *std::min_element(queries.begin(), queries.end()),
                    cpuRatios.empty() ? 0.0 : median(cpuRatios), ids.c_str(), sink);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "flat_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
