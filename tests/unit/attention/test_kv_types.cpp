// bfloat16 rounding and q8_0 quantisation (attn/half.hpp) against PyTorch's and a NumPy
// rewrite of ggml's reference (data/kv_types/, with their provenance), the storing of K/V in
// those types (to_kv, to_float) and its range errors. Attention over such K/V against the
// float64 oracle: test_half_kv.cpp.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/half.hpp"
#include "tensor_test_util.hpp"

namespace {

struct Q8Case {
    const char* name;
    std::vector<std::uint32_t> x;
    std::vector<unsigned char> blocks;
};

#include "../../../data/kv_types/kv_types.inc"

}  // namespace

TEST_CASE("float_to_bfloat16 rounds as torch's .bfloat16(): nearest even, NaN kept, overflow to inf") {
    for (const auto& c : bf16_cases) {
        const float x = std::bit_cast<float>(c[0]);
        INFO("float32 bits " << std::hex << c[0]);
        const std::uint16_t got = attn::float_to_bfloat16(x);
        if (std::isnan(x)) {
            CHECK(std::isnan(attn::bfloat16_to_float(got)));
            CHECK(got == 0x7fc0);
        } else {
            CHECK(got == c[1]);
        }
        // Widening is exact: the bits shifted up.
        CHECK(std::bit_cast<std::uint32_t>(attn::bfloat16_to_float(std::uint16_t(c[1]))) == c[1] << 16);
    }
}

TEST_CASE("quantize_q8_0 gives ggml's blocks (NumPy rewrite of quantize_row_q8_0_ref)") {
    for (const Q8Case& c : q8_cases) {
        INFO(c.name);
        std::vector<float> x(c.x.size());
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::bit_cast<float>(c.x[i]);
        const std::size_t nb = (x.size() + 31) / 32;
        REQUIRE(c.blocks.size() == nb * attn::q8_0_block_bytes);
        std::vector<unsigned char> got(c.blocks.size(), 0xaa);
        attn::quantize_q8_0(x.data(), x.size(), got.data());
        CHECK(got == c.blocks);
        // Dequantised: d·q, exactly, and padding 0.
        for (std::size_t i = 0; i < nb * 32; ++i) {
            const unsigned char* b = c.blocks.data() + i / 32 * 34;
            std::uint16_t d;
            std::memcpy(&d, b, 2);
            const double want = double(attn::half_to_float(d)) * double(std::int8_t(b[2 + i % 32]));
            CHECK(double(attn::dequantize_q8_0(got.data(), i)) == want);
            if (i >= x.size()) CHECK(want == 0.0);
        }
    }
}

TEST_CASE("to_kv stores every element as bf16 / q8_0 and to_float gives the stored values back") {
    std::mt19937 rng(9);
    for (std::size_t d : {1u, 15u, 31u, 32u, 33u, 70u}) {
        const attn::Tensor x = test_util::random_tensor(attn::Shape{2, 3, d}, rng, 3.0f);
        INFO("d = " << d);
        const attn::HalfTensor b = attn::to_kv(x.view(), attn::ElementType::bf16);
        const attn::HalfTensor q = attn::to_kv(x.view(), attn::ElementType::q8_0);
        CHECK(b.type() == attn::ElementType::bf16);
        CHECK(q.type() == attn::ElementType::q8_0);
        CHECK(q.row_stride() % 32 == 0);
        const attn::Tensor bw = attn::to_float(b.view()), qw = attn::to_float(q.view());
        const auto* blocks = reinterpret_cast<const unsigned char*>(q.data());
        for (std::size_t s = 0; s < 2; ++s)
            for (std::size_t r = 0; r < 3; ++r) {
                const float* row = x.slice_data(s) + r * x.row_stride();
                std::vector<unsigned char> want((d + 31) / 32 * 34);
                attn::quantize_q8_0(row, d, want.data());
                const unsigned char* got = blocks + (s * 3 + r) * (q.row_stride() / 32 * 34);
                CHECK(std::memcmp(got, want.data(), want.size()) == 0);
                for (std::size_t c = 0; c < d; ++c) {
                    CHECK(bw.slice_data(s)[r * bw.row_stride() + c] ==
                          attn::bfloat16_to_float(attn::float_to_bfloat16(row[c])));
                    CHECK(qw.slice_data(s)[r * qw.row_stride() + c] == attn::dequantize_q8_0(want.data(), c));
                    // q8_0's error is at most half a step of its block's scale (plus the scale's rounding).
                    float amax = 0;
                    for (std::size_t j = c / 32 * 32; j < std::min(d, c / 32 * 32 + 32); ++j) amax = std::max(amax, std::fabs(row[j]));
                    CHECK(std::fabs(qw.slice_data(s)[r * qw.row_stride() + c] - row[c]) <= amax / 127 * 0.51f + amax * 1e-3f);
                }
            }
    }
}

TEST_CASE("to_kv refuses a finite value the type cannot hold") {
    attn::Tensor x(attn::Shape{1, 40});
    x.data()[33] = 70000.0f;
    CHECK_NOTHROW((void)attn::to_kv(x.view(), attn::ElementType::bf16));
    CHECK_NOTHROW((void)attn::to_kv(x.view(), attn::ElementType::q8_0));  // 70000/127 fits float16
    CHECK_THROWS_WITH_AS((void)attn::to_kv(x.view(), attn::ElementType::f16),
                         "the value 70000 is beyond float16's range (±65504): keep it as f32", attn::InputError);
    x.data()[33] = 3.4e38f;
    CHECK_THROWS_AS((void)attn::to_kv(x.view(), attn::ElementType::bf16), attn::InputError);
    CHECK_THROWS_WITH_AS((void)attn::to_kv(x.view(), attn::ElementType::q8_0),
                         "the value 3.4e+38 is beyond q8_0's range (a block's scale amax/127 must fit float16: |x| "
                         "<= 65504·127): keep it as f32",
                         attn::InputError);
}
