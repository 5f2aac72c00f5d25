// Helpers shared by the unit tests of the attention variants (attention/test_sinks_segments.cpp,
// test_softcap_window.cpp, test_rope_alibi.cpp, test_score_functions.cpp, test_key_shards.cpp,
// test_causal_offsets.cpp, test_multihead.cpp): each compares the engine against the float64
// oracle of double_reference.hpp, (b, h) by (b, h).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <initializer_list>

#include <doctest/doctest.h>

#include "attn/multihead.hpp"
#include "attn/ops.hpp"
#include "double_reference.hpp"
#include "tensor_test_util.hpp"
#include "test_util.hpp"

namespace test_util {

// The oracle's weights and context for one (b, h), and how many of its rows were masked whole.
struct Oracle {
    test_ref::Grid weights, context;
    std::size_t masked = 0;
};

// got (rows×cols at p, stride ld) against want within rel·|w| + max(2e-6, rel/4)·size; NaN must
// match NaN. *worst keeps the largest error relative to |w| + size.
inline std::size_t mismatches(const float* p, std::size_t ld, const test_ref::Grid& want, double size, double rel,
                              double* worst) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
        for (std::size_t j = 0; j < want[i].size(); ++j) {
            const double w = want[i][j], g = p[i * ld + j];
            if (std::isnan(w)) {
                bad += !std::isnan(g);
                continue;
            }
            const double err = std::fabs(g - w);
            *worst = std::max(*worst, err / (std::fabs(w) + size));
            bad += !(err <= rel * std::fabs(w) + std::max(2e-6, rel / 4) * size);
        }
    return bad;
}

// The slice index of (b, h) in a result (attn/problem.hpp's rank rule): a case's inputs have a
// head dimension when any of its shapes c.q, c.k, c.v has rank 3 or more.
template <class Case>
std::size_t slice_of(const Case& c, std::size_t b, std::size_t h, std::size_t H) {
    const bool head_dim = c.q.rank() >= 3 || c.k.rank() >= 3 || c.v.rank() >= 3;
    return b * (head_dim ? H : 1) + (head_dim ? h : 0);
}

// Runs run() (a BatchedAttention) with 1 thread and then with each of `threads` (or of
// $ATTN_TEST_THREADS: thread_counts), CHECKing the same bits in the context, and in the weights
// when `weights`; leaves the default thread count. Returns the 1-thread result.
template <class Run>
attn::BatchedAttention check_same_bits_over_threads(std::initializer_list<unsigned> threads, bool weights, const Run& run) {
    attn::set_threads(1);
    const attn::BatchedAttention one = run();
    for (unsigned t : thread_counts(threads)) {
        if (t == 1) continue;
        attn::set_threads(t);
        const attn::BatchedAttention other = run();
        CHECK(same_bits(one.context, other.context));
        if (weights) CHECK(same_bits(one.weights, other.weights));
    }
    attn::set_threads(0);
    return one;
}

}  // namespace test_util
