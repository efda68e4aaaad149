// harness.hpp: what the native HNSW peers of `veclab bench hnsw` share —
// reading TEXMEX .fvecs/.ivecs files, normalising for cosine, parsing the
// flags' comma lists, latency quantiles, and the serve loop by which veclab
// alternates rounds between itself and each peer without rebuilding.
//
// The serve protocol (-serve): the harness builds its index(es), prints one
// JSON line (the builds), then reads standard input line by line; each line
// "sweep" makes it sweep every ef once and print one JSON line {"search":[…]};
// end of input ends it. Between two sweeps veclab times its own, so the
// rounds of both sides alternate on the same machine.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace peer {

using Clock = std::chrono::steady_clock;

struct Vecs {
    size_t n = 0, dim = 0;
    std::vector<float> data;  // n × dim, row-major
};

// readVecs reads a TEXMEX file whose records are int32 dim + dim × 4 bytes.
template <typename T>
void readVecs(const std::string &path, size_t &n, size_t &dim, std::vector<T> &out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error(path + ": cannot open");
    n = 0;
    dim = 0;
    for (;;) {
        int32_t d;
        if (!f.read(reinterpret_cast<char *>(&d), 4)) {
            if (f.gcount() == 0) break;
            throw std::runtime_error(path + ": truncated dimension header at record " + std::to_string(n));
        }
        if (d <= 0 || d > (1 << 20)) throw std::runtime_error(path + ": bad dimension " + std::to_string(d));
        if (dim == 0) dim = d;
        if ((size_t)d != dim) throw std::runtime_error(path + ": inconsistent dimension at record " + std::to_string(n));
        size_t off = out.size();
        out.resize(off + dim);
        if (!f.read(reinterpret_cast<char *>(out.data() + off), dim * 4))
            throw std::runtime_error(path + ": truncated record " + std::to_string(n));
        n++;
    }
    if (n == 0) throw std::runtime_error(path + ": no records");
}

inline void readFvecs(const std::string &path, Vecs &v) { readVecs(path, v.n, v.dim, v.data); }

inline void normalize(Vecs &v) {
    for (size_t i = 0; i < v.n; i++) {
        float *x = v.data.data() + i * v.dim;
        double s = 0;
        for (size_t j = 0; j < v.dim; j++) s += double(x[j]) * x[j];
        if (s == 0) throw std::runtime_error("zero vector under cosine at row " + std::to_string(i));
        float inv = float(1 / std::sqrt(s));
        for (size_t j = 0; j < v.dim; j++) x[j] *= inv;
    }
}

inline std::vector<size_t> parseList(const std::string &s) {
    std::vector<size_t> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (!item.empty()) out.push_back(std::stoul(item));
    }
    if (out.empty()) throw std::runtime_error("empty list: " + s);
    return out;
}

inline double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    size_t i = size_t(std::ceil(q * v.size()));
    if (i > 0) i--;
    return v[std::min(i, v.size() - 1)];
}

// serve prints head (one JSON line), then answers each "sweep" line of
// standard input with sweep()'s JSON line, until end of input.
template <typename F>
void serve(const std::string &head, F sweep) {
    std::printf("%s\n", head.c_str());
    std::fflush(stdout);
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line != "sweep") throw std::runtime_error("serve: unknown request \"" + line + "\" (want sweep)");
        std::printf("{\"search\":[%s]}\n", sweep().c_str());
        std::fflush(stdout);
    }
}

}  // namespace peer
