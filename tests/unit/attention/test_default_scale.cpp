// The one default scale (attn/problem.hpp): 1/sqrt(d_k) in double rounded to float, as
// PyTorch. Expected bits from NumPy (data/scale/make_reference.py), for every d_k 1…1024.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "attn/multihead.hpp"
#include "attn/problem.hpp"

namespace {

struct Expected {
    std::size_t d_k;
    std::uint32_t bits;
    bool differs_in_float;  // 1.0f / sqrtf(d_k) is another float
};

const Expected expected[] = {
#include "../../../data/scale/default_scale.inc"
};

}  // namespace

TEST_CASE("default scale: float(1/math.sqrt(d_k)) for every d_k from 1 to 1024") {
    REQUIRE(std::size(expected) == 1024);
    std::size_t wrong = 0;
    for (const Expected& e : expected)
        if (std::bit_cast<std::uint32_t>(attn::default_scale(e.d_k)) != e.bits) ++wrong;
    CHECK(wrong == 0);
    CHECK(attn::default_scale(0) == 1.0f);
}

TEST_CASE("default scale: the d_k values where the float computation of before differs") {
    // Before, the library's default and bench computed 1.0f / std::sqrt(float(d_k)): one ulp off
    // for these 242 values (24 and 96 among them). The engine now uses default_scale.
    std::vector<std::size_t> changed;
    for (const Expected& e : expected)
        if (e.differs_in_float) changed.push_back(e.d_k);
    CHECK(changed.size() == 242);
    for (std::size_t d : {std::size_t(24), std::size_t(96)})
        CHECK(std::find(changed.begin(), changed.end(), d) != changed.end());
    std::size_t agree = 0;  // the float formula reproduces the recorded difference
    for (const Expected& e : expected)
        agree += (1.0f / std::sqrt(float(e.d_k)) != attn::default_scale(e.d_k)) == e.differs_in_float;
    CHECK(agree == 1024);
}

TEST_CASE("default scale: the engine's unset scale is default_scale(d_k)") {
    // d_k = 24: the float computation is one ulp away, so a wrong default shows in the scores.
    const std::size_t dk = 24;
    attn::Tensor q(attn::Shape{1, dk}), k(attn::Shape{1, dk}), v(attn::Shape{1, 1});
    for (std::size_t j = 0; j < dk; ++j) q.data()[j] = 1.0f, k.data()[j] = 1.0f;
    const attn::AttentionProblem p = attn::resolve_attention(q.view(), k.view(), v.view(), {});
    CHECK(std::bit_cast<std::uint32_t>(p.scale) == 0x3e5105ecu);
}
