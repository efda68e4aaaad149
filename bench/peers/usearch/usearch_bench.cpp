// usearch_bench: USearch's HNSW (unum-cloud/usearch 2.26.2, index_dense_gt
// from the npm package's C++ headers with its NumKong kernels), a native
// peer of `veclab bench hnsw -peer usearch`.
//
// Builds an index_dense_t from TEXMEX .fvecs files, once per requested
// thread count (threads call add with their own thread slot, as USearch's
// Python binding does), then searches one query per call on one thread at
// each ef and prints JSON: build seconds per thread count, bytes per vector
// (index_dense_gt::memory_usage over n), and per ef recall@k against the
// .ivecs truth, QPS, p50/p95 latency in microseconds and mean distance
// computations per query (search_result_t::computed_distances).
//
// Usage:
//   usearch_bench -base base.fvecs -query query.fvecs -truth groundtruth.ivecs
//                 [-metric cosine|ip|l2] [-m 16] [-efc 64] [-threads 1,2]
//                 [-ef 10,40,64,100] [-k 10] [-min-seconds 0.3] [-timing wall|best]
//                 [-quant f32|i8|b1] [-rescore R] [-filter-percent P]
//                 [-kernel numkong|f32acc] [-serve]
//
// -m sets connectivity (M; connectivity_base is 2M, as in hnswlib) and
// -efc expansion_add; -ef is expansion_search (USearch searches with
// max(ef, k)). USearch draws node levels from its own generator: there is
// no seed to share with veclab.
//
// -quant picks the stored scalar: f32; i8 (USearch casts each coordinate of
// the unit-length vector to round(127·x), cosine over the codes); b1 (one
// sign bit per coordinate, Hamming distance). -rescore R > 0 asks the graph
// for R·k candidates (beam max(ef, R·k)) and re-ranks them by the exact
// float distance to the harness's copy of the vectors, inside the timing.
//
// -filter-percent P searches with USearch's predicate (filtered_search):
// only keys with key % 100 < P are admitted; the truth must then be the
// exact neighbours among those keys (veclab writes it so).
//
// -kernel picks the f32 distance: numkong (the default, USearch as
// shipped: metric_punned_t::builtin finds NumKong's kernel, which on AVX2
// machines is nk_dot_f32_haswell / nk_sqeuclidean_f32_haswell, and those
// widen every coordinate to f64 and accumulate four f64 lanes in one
// dependent FMA chain, numkong/include/numkong/dot/haswell.h), or f32acc:
// the same index with metric_punned_t::stateless over this file's AVX2 FMA
// loop with four 8-lane f32 accumulators, the summation hnswlib and veclab
// use. f32acc is a diagnostic: it separates the cost of USearch's kernel
// from that of its graph and search loop; it is not USearch as users get
// it.
//
// -serve: see bench/peers/common/harness.hpp; the sweeps repeat on demand.
#include <usearch/index_dense.hpp>

#include "../common/harness.hpp"

#include <atomic>
#include <ctime>
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif
#include <memory>
#include <thread>
#include <unordered_set>

using namespace unum::usearch;
using peer::Clock;

namespace {

float dot(const float *a, const float *b, size_t d) {
    float s = 0;
    for (size_t i = 0; i < d; i++) s += a[i] * b[i];
    return s;
}

float l2(const float *a, const float *b, size_t d) {
    float s = 0;
    for (size_t i = 0; i < d; i++) {
        float t = a[i] - b[i];
        s += t * t;
    }
    return s;
}

// f32acc kernels for -kernel f32acc (metric_punned_signature_t::
// array_array_size_k: two vectors and the dimension). They sum in f32 with
// four independent 8-lane accumulators, as hnswlib's AVX kernels and
// veclab's sum in f32; ipDistance returns 1 − a·b as USearch's ip_k does.
#if defined(__AVX2__) && defined(__FMA__)
// hsum adds the four 8-lane accumulators' 32 lanes into one f32.
float hsum(__m256 s0, __m256 s1, __m256 s2, __m256 s3) {
    __m256 t = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
    h = _mm_hadd_ps(h, h);
    h = _mm_hadd_ps(h, h);
    return _mm_cvtss_f32(h);
}
#endif

float ipSum(const float *a, const float *b, size_t d) {
    size_t i = 0;
    float s = 0;
#if defined(__AVX2__) && defined(__FMA__)
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (; i + 32 <= d; i += 32) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
    }
    for (; i + 8 <= d; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s = hsum(s0, s1, s2, s3);
#endif
    for (; i < d; i++) s += a[i] * b[i];
    return s;
}

float l2Sum(const float *a, const float *b, size_t d) {
    size_t i = 0;
    float s = 0;
#if defined(__AVX2__) && defined(__FMA__)
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (; i + 32 <= d; i += 32) {
        __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
        __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
        __m256 d2 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16));
        __m256 d3 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24));
        s0 = _mm256_fmadd_ps(d0, d0, s0);
        s1 = _mm256_fmadd_ps(d1, d1, s1);
        s2 = _mm256_fmadd_ps(d2, d2, s2);
        s3 = _mm256_fmadd_ps(d3, d3, s3);
    }
    for (; i + 8 <= d; i += 8) {
        __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
        s0 = _mm256_fmadd_ps(d0, d0, s0);
    }
    s = hsum(s0, s1, s2, s3);
#endif
    for (; i < d; i++) {
        float t = a[i] - b[i];
        s += t * t;
    }
    return s;
}

distance_punned_t ipDistance(std::size_t a, std::size_t b, std::size_t d) {
    return 1 - ipSum(reinterpret_cast<const float *>(a), reinterpret_cast<const float *>(b), d);
}

distance_punned_t l2Distance(std::size_t a, std::size_t b, std::size_t d) {
    return l2Sum(reinterpret_cast<const float *>(a), reinterpret_cast<const float *>(b), d);
}

}  // namespace

int main(int argc, char **argv) {
    std::string basePath, queryPath, truthPath, metric = "cosine", quant = "f32";
    std::string threadsArg = "1", efArg = "10,20,40,64,100,200,400";
    size_t M = 16, efc = 64, k = 10, rescore = 0, filterPercent = 100;
    double minSeconds = 0.3;
    std::string timing = "wall", kernel = "numkong";
    bool serveMode = false;
    try {
        for (int i = 1; i < argc; i++) {
            std::string a = argv[i];
            auto next = [&]() -> std::string {
                if (i + 1 >= argc) throw std::runtime_error("flag " + a + " needs a value");
                return argv[++i];
            };
            if (a == "-base") basePath = next();
            else if (a == "-query") queryPath = next();
            else if (a == "-truth") truthPath = next();
            else if (a == "-metric") metric = next();
            else if (a == "-m") M = std::stoul(next());
            else if (a == "-efc") efc = std::stoul(next());
            else if (a == "-threads") threadsArg = next();
            else if (a == "-ef") efArg = next();
            else if (a == "-k") k = std::stoul(next());
            else if (a == "-seed") next();  // accepted for the common flag set; USearch has no level seed
            else if (a == "-min-seconds") minSeconds = std::stod(next());
            else if (a == "-timing") timing = next();
            else if (a == "-quant") quant = next();
            else if (a == "-rescore") rescore = std::stoul(next());
            else if (a == "-filter-percent") filterPercent = std::stoul(next());
            else if (a == "-kernel") kernel = next();
            else if (a == "-serve") serveMode = true;
            else throw std::runtime_error("unknown flag " + a);
        }
        if (timing != "wall" && timing != "best") throw std::runtime_error("-timing must be wall or best");
        if (basePath.empty() || queryPath.empty() || truthPath.empty())
            throw std::runtime_error("-base, -query and -truth are required");
        if (filterPercent < 1 || filterPercent > 100) throw std::runtime_error("-filter-percent must be in 1..100");
        std::vector<size_t> threads = peer::parseList(threadsArg), efs = peer::parseList(efArg);

        peer::Vecs base, query;
        peer::readFvecs(basePath, base);
        peer::readFvecs(queryPath, query);
        size_t tn, tk;
        std::vector<int32_t> truth;
        peer::readVecs(truthPath, tn, tk, truth);
        if (query.dim != base.dim) throw std::runtime_error("query and base dimensions differ");
        if (tn != query.n) throw std::runtime_error("truth has " + std::to_string(tn) + " rows, queries " + std::to_string(query.n));
        if (tk < k) throw std::runtime_error("truth holds fewer than k neighbours per query");

        metric_kind_t kind;
        bool isL2 = false;
        if (metric == "cosine") {
            peer::normalize(base);
            peer::normalize(query);
            // On unit vectors cosine is 1 − inner product, so f32 storage
            // searches with ip_k: cos_k would recompute both norms in every
            // distance, work hnswlib (InnerProductSpace after the same
            // normalisation) and veclab do not do, and the comparison would
            // charge USearch for it. i8 keeps cos_k, the metric USearch's
            // int8 cast (round(127·x) of the unit vector) is documented for.
            kind = quant == "f32" ? metric_kind_t::ip_k : metric_kind_t::cos_k;
        } else if (metric == "ip" || metric == "dot") {
            kind = metric_kind_t::ip_k;
        } else if (metric == "l2") {
            kind = metric_kind_t::l2sq_k;
            isL2 = true;
        } else {
            throw std::runtime_error("unknown metric " + metric);
        }
        scalar_kind_t scalar;
        if (quant == "f32") scalar = scalar_kind_t::f32_k;
        else if (quant == "i8") scalar = scalar_kind_t::i8_k;
        else if (quant == "b1") {
            scalar = scalar_kind_t::b1x8_k;
            kind = metric_kind_t::hamming_k;
        } else throw std::runtime_error("unknown -quant " + quant + " (want f32, i8 or b1)");
        if (kernel != "numkong" && kernel != "f32acc") throw std::runtime_error("-kernel must be numkong or f32acc");
        if (kernel == "f32acc" && (quant != "f32" || (kind != metric_kind_t::ip_k && kind != metric_kind_t::l2sq_k)))
            throw std::runtime_error("-kernel f32acc applies to -quant f32 only");
        metric_punned_t punned =
            kernel == "numkong"
                ? metric_punned_t(base.dim, kind, scalar)
                : metric_punned_t::stateless(base.dim, reinterpret_cast<std::uintptr_t>(isL2 ? &l2Distance : &ipDistance),
                                             metric_punned_signature_t::array_array_size_k, kind, scalar);
        if (punned.missing()) throw std::runtime_error("USearch has no kernel for " + metric + " over " + quant);

        std::unique_ptr<index_dense_t> searchIndex;
        std::string buildsJSON;
        for (size_t bi = 0; bi < threads.size(); bi++) {
            size_t nt = std::max<size_t>(1, threads[bi]);
            index_dense_config_t config(M, efc, 64);
            config.connectivity_base = 2 * M;
            auto made = index_dense_t::make(punned, config);
            if (!made) throw std::runtime_error(std::string("index_dense_t::make: ") + made.error.what());
            auto index = std::make_unique<index_dense_t>(std::move(made.index));
            if (!index->try_reserve(index_limits_t(base.n, nt))) throw std::runtime_error("reserve failed");
            auto t0 = Clock::now();
            std::clock_t c0 = std::clock();
            std::atomic<size_t> next(0);
            std::atomic<bool> failed(false);
            auto work = [&](size_t slot) {
                for (size_t i; (i = next.fetch_add(1)) < base.n;) {
                    auto r = index->add(i, base.data.data() + i * base.dim, slot);
                    if (!r) failed = true;
                }
            };
            if (nt == 1) work(0);
            else {
                std::vector<std::thread> pool;
                for (size_t t = 0; t < nt; t++) pool.emplace_back(work, t);
                for (auto &th : pool) th.join();
            }
            if (failed) throw std::runtime_error("add failed");
            double secs = std::chrono::duration<double>(Clock::now() - t0).count();
            double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
            char buf[160];
            std::snprintf(buf, sizeof buf, "%s{\"threads\":%zu,\"seconds\":%.4f,\"cpu_seconds\":%.4f}", bi ? "," : "", nt, secs, cpu);
            buildsJSON += buf;
            if (bi == 0) searchIndex = std::move(index);
        }
        double bytesPerVector = double(searchIndex->memory_usage()) / double(base.n);

        const size_t want = rescore > 0 ? rescore * k : k;
        std::vector<index_dense_t::vector_key_t> keys(want);
        std::vector<index_dense_t::distance_t> dists(want);
        std::vector<std::pair<float, size_t>> cand(want);
        auto allowed = [&](index_dense_t::vector_key_t key) { return key % 100 < filterPercent; };
        // one query: its result ids (best first) into ids, its distance
        // computations returned.
        auto searchOne = [&](size_t qi, std::vector<size_t> &ids) -> size_t {
            const float *q = query.data.data() + qi * query.dim;
            index_dense_t::search_result_t res = filterPercent < 100 ? searchIndex->filtered_search(q, want, allowed, 0)
                                                                     : searchIndex->search(q, want, 0);
            if (!res) throw std::runtime_error(std::string("search: ") + res.error.what());
            size_t got = res.dump_to(keys.data(), dists.data());
            size_t comps = res.computed_distances;
            ids.clear();
            if (rescore == 0) {
                for (size_t j = 0; j < got; j++) ids.push_back(keys[j]);
                return comps;
            }
            for (size_t j = 0; j < got; j++) {
                const float *x = base.data.data() + keys[j] * base.dim;
                cand[j] = {isL2 ? l2(q, x, base.dim) : -dot(q, x, base.dim), keys[j]};
            }
            size_t top = std::min(k, got);
            std::partial_sort(cand.begin(), cand.begin() + top, cand.begin() + got);
            for (size_t j = 0; j < top; j++) ids.push_back(cand[j].second);
            return comps + got;
        };

        auto sweep = [&]() -> std::string {
            std::string out;
            std::vector<size_t> ids;
            for (size_t ei = 0; ei < efs.size(); ei++) {
                size_t ef = efs[ei];
                searchIndex->change_expansion_search(std::max(ef, want));
                for (size_t i = 0; i < std::min<size_t>(20, query.n); i++) searchOne(i, ids);  // warm-up
                std::vector<double> lat, best(query.n, 1e300);
                double hits = 0, elapsed = 0, comps = 0;
                size_t passes = 0, calls = 0;
                const size_t minPasses = timing == "best" ? 3 : 1;
                while (passes < minPasses || elapsed < minSeconds) {
                    for (size_t i = 0; i < query.n; i++) {
                        auto t0 = Clock::now();
                        size_t c = searchOne(i, ids);
                        double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
                        lat.push_back(us);
                        best[i] = std::min(best[i], us);
                        elapsed += us / 1e6;
                        calls++;
                        if (passes == 0) {
                            comps += c;
                            std::unordered_set<int32_t> wantIDs(truth.begin() + i * tk, truth.begin() + i * tk + k);
                            for (size_t j = 0; j < std::min(k, ids.size()); j++) hits += wantIDs.count(int32_t(ids[j]));
                        }
                    }
                    passes++;
                }
                double qps = calls / elapsed;
                if (timing == "best") {
                    double sum = 0;
                    for (double b : best) sum += b;
                    qps = query.n / (sum / 1e6);
                    lat = best;
                }
                char buf[256];
                std::snprintf(buf, sizeof buf,
                              "%s{\"ef\":%zu,\"recall\":%.4f,\"qps\":%.1f,\"p50_us\":%.2f,\"p95_us\":%.2f,\"dist_comps\":%.1f}",
                              ei ? "," : "", ef, hits / double(query.n * k), qps, peer::quantile(lat, 0.50),
                              peer::quantile(lat, 0.95), comps / double(query.n));
                out += buf;
            }
            return out;
        };

        char head[512];
        std::snprintf(head, sizeof head,
                      "{\"peer\":\"usearch\",\"version\":\"%d.%d.%d\",\"quant\":\"%s\",\"rescore\":%zu,\"filter_percent\":%zu,"
                      "\"kernels\":\"%s\",\"n\":%zu,\"dim\":%zu,\"queries\":%zu,\"metric\":\"%s\",\"m\":%zu,\"efc\":%zu,\"k\":%zu,"
                      "\"bytes_per_vector\":%.1f,\"builds\":[",
                      USEARCH_VERSION_MAJOR, USEARCH_VERSION_MINOR, USEARCH_VERSION_PATCH, quant.c_str(), rescore, filterPercent,
                      kernel == "numkong" ? punned.isa_name() : "f32acc (harness AVX2 FMA, f32 sums)", base.n, base.dim, query.n, metric.c_str(), M, efc, k, bytesPerVector);
        std::string headJSON = std::string(head) + buildsJSON + "]";
        if (serveMode) {
            peer::serve(headJSON + "}", sweep);
        } else {
            std::printf("%s,\"search\":[%s]}\n", headJSON.c_str(), sweep().c_str());
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "usearch_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
