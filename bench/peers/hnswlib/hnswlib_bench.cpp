// hnswlib_bench: the anchor of `veclab bench hnsw -peer hnswlib`.
//
// Builds an hnswlib index (Debian's libhnswlib-dev headers, nmslib/hnswlib
// 0.6.2) from TEXMEX .fvecs files, once per requested thread count (threads
// call addPoint concurrently, as hnswlib's Python binding does), then
// searches one query per call on one thread at each ef and prints one JSON
// object: build seconds per thread count, and per ef recall@k against the
// .ivecs truth, QPS, p50/p95 latency in microseconds and mean distance
// computations per query.
//
// Usage:
//   hnswlib_bench -base base.fvecs -query query.fvecs -truth groundtruth.ivecs
//                 [-metric cosine|ip|l2] [-m 16] [-efc 64] [-threads 1,2]
//                 [-ef 10,40,64,100] [-k 10] [-seed 100] [-min-seconds 0.3]
//                 [-timing wall|best] [-clients 1,2,4,8 -batch-threads 2 [-batch-min-seconds S]]
//                 [-serve]
//
// Cosine normalises every vector and uses InnerProductSpace (1 − ⟨a,b⟩).
// The search runs on the index built with the first thread count.
// -timing wall (default) reports QPS over every timed pass; -timing best
// times each query by its fastest of at least three passes, which filters
// out other work on a shared machine.
//
// -clients adds a "batch" array: for each client count c and each ef, c
// client threads start together, each answering its 1/c share of the
// queries as hnswlib's Python binding answers knn_query(data, k,
// num_threads=batch-threads): ParallelFor over the rows (python_bindings/
// bindings.cpp: num_threads workers take row numbers from an atomic
// counter, each calling searchKnn), and QPS is all queries over the wall
// time until every client is done, over at least three passes and
// -batch-min-seconds (default -min-seconds); best_qps is that of the
// fastest pass, cpu_qps all queries over the process CPU time of the passes.
//
// -serve (without -clients): prints the builds and bytes per vector as one
// line, then one sweep line per request (bench/peers/common/harness.hpp),
// so that `veclab bench hnsw` alternates its rounds with this harness's.
#include <hnswlib/hnswlib.h>

#include "../common/harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

using peer::Clock;
using peer::Vecs;
using peer::normalize;
using peer::parseList;
using peer::quantile;
using peer::readVecs;

int main(int argc, char **argv) {
    std::string basePath, queryPath, truthPath, metric = "cosine";
    std::string threadsArg = "1", efArg = "10,20,40,64,100,200,400";
    size_t M = 16, efc = 64, k = 10, seed = 100;
    double minSeconds = 0.3;
    std::string timing = "wall";
    std::string clientsArg;
    size_t batchThreads = 0;
    double batchMinSeconds = -1;  // < 0: -min-seconds
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
            else if (a == "-seed") seed = std::stoul(next());
            else if (a == "-min-seconds") minSeconds = std::stod(next());
            else if (a == "-timing") timing = next();
            else if (a == "-clients") clientsArg = next();
            else if (a == "-batch-threads") batchThreads = std::stoul(next());
            else if (a == "-batch-min-seconds") batchMinSeconds = std::stod(next());
            else if (a == "-serve") serveMode = true;
            else throw std::runtime_error("unknown flag " + a);
        }
        if (timing != "wall" && timing != "best") throw std::runtime_error("-timing must be wall or best");
        if (serveMode && !clientsArg.empty()) throw std::runtime_error("-serve and -clients do not go together");
        if (basePath.empty() || queryPath.empty() || truthPath.empty())
            throw std::runtime_error("-base, -query and -truth are required");
        std::vector<size_t> threads = parseList(threadsArg), efs = parseList(efArg);

        Vecs base, query;
        readVecs(basePath, base.n, base.dim, base.data);
        readVecs(queryPath, query.n, query.dim, query.data);
        size_t tn, tk;
        std::vector<int32_t> truth;
        readVecs(truthPath, tn, tk, truth);
        if (query.dim != base.dim) throw std::runtime_error("query and base dimensions differ");
        if (tn != query.n) throw std::runtime_error("truth has " + std::to_string(tn) + " rows, queries " + std::to_string(query.n));
        if (tk < k) throw std::runtime_error("truth holds fewer than k neighbours per query");

        std::unique_ptr<hnswlib::SpaceInterface<float>> space;
        if (metric == "cosine") {
            normalize(base);
            normalize(query);
            space.reset(new hnswlib::InnerProductSpace(base.dim));
        } else if (metric == "ip" || metric == "dot") {
            space.reset(new hnswlib::InnerProductSpace(base.dim));
        } else if (metric == "l2") {
            space.reset(new hnswlib::L2Space(base.dim));
        } else {
            throw std::runtime_error("unknown metric " + metric);
        }

        std::unique_ptr<hnswlib::HierarchicalNSW<float>> searchIndex;
        std::string buildsJSON;
        for (size_t bi = 0; bi < threads.size(); bi++) {
            size_t nt = std::max<size_t>(1, threads[bi]);
            auto index = std::make_unique<hnswlib::HierarchicalNSW<float>>(space.get(), base.n, M, efc, seed);
            auto t0 = Clock::now();
            std::clock_t c0 = std::clock();
            // The first point alone, so every thread starts from a graph
            // with an entry point (hnswlib's Python binding does the same).
            index->addPoint(base.data.data(), 0);
            if (nt == 1) {
                for (size_t i = 1; i < base.n; i++) index->addPoint(base.data.data() + i * base.dim, i);
            } else {
                std::atomic<size_t> next(1);
                std::vector<std::thread> pool;
                for (size_t t = 0; t < nt; t++) {
                    pool.emplace_back([&]() {
                        for (size_t i; (i = next.fetch_add(1)) < base.n;)
                            index->addPoint(base.data.data() + i * base.dim, i);
                    });
                }
                for (auto &th : pool) th.join();
            }
            double secs = std::chrono::duration<double>(Clock::now() - t0).count();
            double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;  // all threads of the process
            char buf[160];
            std::snprintf(buf, sizeof buf, "%s{\"threads\":%zu,\"seconds\":%.4f,\"cpu_seconds\":%.4f}", bi ? "," : "", nt, secs, cpu);
            buildsJSON += buf;
            if (bi == 0) searchIndex = std::move(index);
        }

        auto sweep = [&]() -> std::string {
            std::string searchJSON;
            for (size_t ei = 0; ei < efs.size(); ei++) {
                size_t ef = efs[ei];
                searchIndex->setEf(ef);
                for (size_t i = 0; i < std::min<size_t>(20, query.n); i++)  // warm-up
                    searchIndex->searchKnn(query.data.data() + i * query.dim, k);
                searchIndex->metric_distance_computations = 0;
                std::vector<double> lat, best(query.n, 1e300);
                double hits = 0, elapsed = 0;
                size_t passes = 0, calls = 0;
                const size_t minPasses = timing == "best" ? 3 : 1;
                while (passes < minPasses || elapsed < minSeconds) {
                    for (size_t i = 0; i < query.n; i++) {
                        auto t0 = Clock::now();
                        auto res = searchIndex->searchKnn(query.data.data() + i * query.dim, k);
                        double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
                        lat.push_back(us);
                        best[i] = std::min(best[i], us);
                        elapsed += us / 1e6;
                        calls++;
                        if (passes == 0) {
                            std::unordered_set<int32_t> want(truth.begin() + i * tk, truth.begin() + i * tk + k);
                            while (!res.empty()) {
                                hits += want.count(int32_t(res.top().second));
                                res.pop();
                            }
                        }
                    }
                    passes++;
                }
                double qps = calls / elapsed;
                if (timing == "best") {
                    // Each query's fastest pass: the cost of the query with the
                    // machine's other work filtered out.
                    double sum = 0;
                    for (double b : best) sum += b;
                    qps = query.n / (sum / 1e6);
                    lat = best;
                }
                char buf[256];
                std::snprintf(buf, sizeof buf,
                              "%s{\"ef\":%zu,\"recall\":%.4f,\"qps\":%.1f,\"p50_us\":%.2f,\"p95_us\":%.2f,\"dist_comps\":%.1f}",
                              ei ? "," : "", ef, hits / double(query.n * k), qps, quantile(lat, 0.50),
                              quantile(lat, 0.95), double(searchIndex->metric_distance_computations.load()) / calls);
                searchJSON += buf;
            }
            return searchJSON;
        };
        if (serveMode) {
            // bytes per vector as hnswlib allocates them: level 0 (vector,
            // links, label) for every element, and the upper levels' link
            // lists of those that have them.
            double bytes = double(searchIndex->size_data_per_element_) * base.n;
            for (size_t i = 0; i < base.n; i++)
                bytes += double(searchIndex->size_links_per_element_) * searchIndex->element_levels_[i];
            char head[200];
            std::snprintf(head, sizeof head, "{\"peer\":\"hnswlib\",\"n\":%zu,\"dim\":%zu,\"m\":%zu,\"efc\":%zu,\"k\":%zu,\"bytes_per_vector\":%.1f,\"builds\":[",
                          base.n, base.dim, M, efc, k, bytes / base.n);
            peer::serve(std::string(head) + buildsJSON + "]}", sweep);
            return 0;
        }
        std::string searchJSON = sweep();
        std::string batchJSON;
        if (!clientsArg.empty()) {
            if (batchThreads == 0) batchThreads = std::max(1u, std::thread::hardware_concurrency());
            std::vector<size_t> clients = parseList(clientsArg);
            std::vector<std::vector<size_t>> got(query.n);
            bool first = true;
            for (size_t c : clients) {
                c = std::max<size_t>(1, std::min(c, query.n));
                for (size_t ef : efs) {
                    searchIndex->setEf(ef);
                    // One client's knn_query over rows [lo, hi): ParallelFor
                    // as in hnswlib's python_bindings/bindings.cpp.
                    auto knnQuery = [&](size_t lo, size_t hi) {
                        std::atomic<size_t> next(lo);
                        std::vector<std::thread> pool;
                        for (size_t t = 0; t < batchThreads; t++) {
                            pool.emplace_back([&]() {
                                for (size_t i; (i = next.fetch_add(1)) < hi;) {
                                    auto res = searchIndex->searchKnn(query.data.data() + i * query.dim, k);
                                    std::vector<size_t> ids;
                                    while (!res.empty()) {
                                        ids.push_back(res.top().second);
                                        res.pop();
                                    }
                                    got[i] = std::move(ids);
                                }
                            });
                        }
                        for (auto &th : pool) th.join();
                    };
                    double elapsed = 0, fastest = 1e300;
                    size_t passes = 0;
                    std::clock_t cpu0 = std::clock();  // all threads of the process
                    while (passes < 3 || elapsed < (batchMinSeconds < 0 ? minSeconds : batchMinSeconds)) {
                        auto t0 = Clock::now();
                        std::vector<std::thread> cl;
                        for (size_t j = 0; j < c; j++)
                            cl.emplace_back(knnQuery, j * query.n / c, (j + 1) * query.n / c);
                        for (auto &th : cl) th.join();
                        double el = std::chrono::duration<double>(Clock::now() - t0).count();
                        elapsed += el;
                        fastest = std::min(fastest, el);
                        passes++;
                    }
                    double cpu = double(std::clock() - cpu0) / CLOCKS_PER_SEC;
                    double hits = 0;
                    for (size_t i = 0; i < query.n; i++) {
                        std::unordered_set<int32_t> want(truth.begin() + i * tk, truth.begin() + i * tk + k);
                        for (size_t id : got[i]) hits += want.count(int32_t(id));
                    }
                    char buf[200];
                    std::snprintf(buf, sizeof buf, "%s{\"clients\":%zu,\"threads\":%zu,\"ef\":%zu,\"recall\":%.4f,\"qps\":%.1f,\"best_qps\":%.1f,\"cpu_qps\":%.1f}",
                                  first ? "" : ",", c, batchThreads, ef, hits / double(query.n * k), passes * query.n / elapsed,
                                  query.n / fastest, cpu > 0 ? passes * query.n / cpu : 0.0);
                    first = false;
                    batchJSON += buf;
                }
            }
        }
        std::printf("{\"peer\":\"hnswlib\",\"n\":%zu,\"dim\":%zu,\"queries\":%zu,\"metric\":\"%s\",\"m\":%zu,\"efc\":%zu,\"k\":%zu,"
                    "\"builds\":[%s],\"search\":[%s],\"batch\":[%s]}\n",
                    base.n, base.dim, query.n, metric.c_str(), M, efc, k, buildsJSON.c_str(), searchJSON.c_str(), batchJSON.c_str());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "hnswlib_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
