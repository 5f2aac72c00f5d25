// float16, bfloat16 and q8_0 keys and values (attn/half.hpp): the rounding to float16, the
// '<f2' writer, and attention over such K/V — split-K decoding, the fused query-block kernel
// and the materialised path — against the float64 oracle of the same (rounded or dequantised)
// values, for every arch this machine runs plus scalar, on awkward shapes, with the same bits
// for any thread count. Also the read-bandwidth probe of each arch (an exact sum). The
// bfloat16 rounding and q8_0 quantisation against NumPy/torch data: test_kv_types.cpp.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/half.hpp"
#include "attn/io.hpp"
#include "attn/multihead.hpp"
#include "attn/ops.hpp"
#include "double_reference.hpp"
#include "arch/kernel_table.hpp"
#include "kernels/half_table.hpp"

#include "tensor_test_util.hpp"

namespace {

using test_util::random_tensor;
using test_util::same_bits;
using test_util::slice_bh;
const auto arches = test_util::supported_arches;

using attn::Causal;
using attn::HalfTensor;
using attn::Shape;
using attn::Tensor;

// The float16 value of bits h, computed from the IEEE definition in double (independent of
// the library's conversion).
double half_value(std::uint16_t h) {
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const double mag = e == 0 ? std::ldexp(double(m), -24) : std::ldexp(double(m | 0x400), e - 25);
    return (h & 0x8000) ? -mag : mag;
}

using test_util::ArchGuard;

struct Case {
    std::string name;
    Shape q, k, v;
    Causal causal = Causal::none;
    std::vector<std::size_t> lengths;
    bool chunk_mask = false;  // (B, 1, 1, Tk) mask: chunk 1 all masked, chunk 2 one allowed key
};

// Decoding shapes (Tq <= 4: split-K) and two prefill ones (the query-block kernel).
std::vector<Case> cases() {
    std::vector<Case> c;
    c.push_back({"decode Tq=1 d=128, 1000 keys (no multiple of a tile or chunk)", {1, 1, 1, 128}, {1, 1, 1000, 128},
                 {1, 1, 1000, 128}, Causal::none, {}});
    c.push_back({"decode gqa H=8 G=2 Tq=1 odd d=37, dv=19", {1, 8, 1, 37}, {1, 2, 777, 37}, {1, 2, 777, 19}, Causal::none, {}});
    c.push_back({"decode Tq=1 Tk=1", {2, 1, 1, 16}, {2, 1, 1, 16}, {2, 1, 1, 16}, Causal::none, {}});
    c.push_back({"decode Tq=3 bottom-right causal, lengths 1 and 2100", {2, 2, 3, 24}, {2, 2, 2100, 24},
                 {2, 2, 2100, 24}, Causal::bottom_right, {1, 2100}});
    c.push_back({"decode Tq=2 chunk-aligned mask: an all-masked chunk, a single allowed key", {2, 1, 2, 40},
                 {2, 1, 3500, 40}, {2, 1, 3500, 24}, Causal::none, {}, true});
    c.push_back({"decode Tq=4 top-left causal: rows see 1 to 4 keys", {1, 2, 4, 9}, {1, 2, 600, 9}, {1, 2, 600, 9},
                 Causal::top_left, {}});
    c.push_back({"prefill Tq=37 gqa H=4 G=2 causal, odd d", {1, 4, 37, 33}, {1, 2, 300, 33}, {1, 2, 300, 17},
                 Causal::bottom_right, {}});
    c.push_back({"prefill Tq=70 lengths 5 and 130", {2, 1, 70, 64}, {2, 1, 130, 64}, {2, 1, 130, 64}, Causal::none,
                 {5, 130}});
    // Widths around the lanes (4, 8, 16) and the q8_0 block (32): a partial last vector, a
    // block with one value, d = 1.
    c.push_back({"decode Tq=1 d=1, dv=1", {1, 2, 1, 1}, {1, 2, 300, 1}, {1, 2, 300, 1}, Causal::none, {}});
    c.push_back({"decode Tq=2 d=31, dv=33, 1100 keys", {1, 1, 2, 31}, {1, 1, 1100, 31}, {1, 1, 1100, 33},
                 Causal::none, {}});
    c.push_back({"decode Tq=1 d=17, dv=15 top-left causal", {1, 3, 1, 17}, {1, 3, 500, 17}, {1, 3, 500, 15},
                 Causal::top_left, {}});
    c.push_back({"prefill Tq=20 d=33, dv=7 top-left causal", {1, 2, 20, 33}, {1, 2, 90, 33}, {1, 2, 90, 7},
                 Causal::top_left, {}});
    c.push_back({"prefill Tq=9 d=15, dv=65", {1, 1, 9, 15}, {1, 1, 40, 15}, {1, 1, 40, 65}, Causal::none, {}});
    return c;
}

struct Inputs {
    Tensor Q, K, V, mask;  // K and V hold the stored values widened (exactly what K16/V16 hold)
    HalfTensor K16, V16;   // of the type asked (f16, bf16, q8_0)
    attn::AttentionSpec spec;
    attn::TensorView mask_view;
};

Inputs make_inputs(const Case& c, unsigned seed, attn::ElementType type = attn::ElementType::f16) {
    std::mt19937 rng(seed);
    Inputs in;
    in.Q = random_tensor(c.q, rng, 1.5f);
    in.K16 = attn::to_kv(random_tensor(c.k, rng, 1.5f).view(), type);
    in.V16 = attn::to_kv(random_tensor(c.v, rng, 1.0f).view(), type);
    in.K = attn::to_float(in.K16.view());
    in.V = attn::to_float(in.V16.view());
    in.spec.causal = c.causal;
    in.spec.lengths = c.lengths;
    if (c.chunk_mask) {
        const std::size_t B = c.k.back(4), Tk = c.k.back(2);
        const std::size_t C = attn::split_key_chunk(Tk, c.k.back(1), c.v.back(1), attn::element_size(type));
        REQUIRE(Tk > 3 * C);
        in.mask = Tensor(Shape{B, 1, 1, Tk});
        std::uniform_int_distribution<int> coin(0, 3);
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t j = 0; j < Tk; ++j)
                in.mask.slice_data(b)[j] = j >= C && j < 3 * C ? (j == 2 * C + 7 ? 1.0f : 0.0f) : (coin(rng) ? 1.0f : 0.0f);
        in.mask_view = in.mask.view();
        in.spec.mask = &in.mask_view;
    }
    return in;
}

// The float64 oracle's context for (b, h) over the float16-rounded inputs.
test_ref::Grid oracle(const Case& c, const Inputs& in, std::size_t b, std::size_t h, std::size_t H, std::size_t G) {
    const std::size_t kv = h / (H / G);
    const attn::Matrix Q = slice_bh(in.Q, b, h), K = slice_bh(in.K, b, kv), V = slice_bh(in.V, b, kv);
    const std::size_t Tq = Q.rows(), Tk = K.rows();
    attn::Matrix mask(Tq, Tk, 1.0f);
    for (std::size_t i = 0; i < Tq; ++i)
        for (std::size_t j = 0; j < Tk; ++j) {
            if (!c.lengths.empty() && j >= c.lengths[b]) mask(i, j) = 0.0f;
            if (in.mask.rank() && in.mask.slice_data(b)[j] == 0.0f) mask(i, j) = 0.0f;
        }
    test_ref::Spec s;
    s.scale = 1.0 / std::sqrt(double(Q.cols()));
    s.causal = c.causal == Causal::top_left ? 1 : c.causal == Causal::bottom_right ? 2 : 0;
    // bottom-right with lengths: each item's own length − Tq (ONNX's nonpad_kv_seqlen rule)
    if (c.causal == Causal::bottom_right && !c.lengths.empty()) s.offset = (long long)c.lengths[b] - (long long)Tq;
    s.mask = &mask;
    test_ref::Grid context;
    test_ref::attention(Q, K, V, s, &context, nullptr);
    return context;
}

// Elements of the context beyond 1e-5 relative + 2e-6 of the largest |V|.
std::size_t mismatches(const Tensor& got, const Case& c, const Inputs& in, std::size_t H, std::size_t G) {
    double vsize = 0;
    for (std::size_t s = 0; s < in.V.slices(); ++s)
        for (std::size_t r = 0; r < in.V.rows(); ++r)
            for (std::size_t col = 0; col < in.V.cols(); ++col)
                vsize = std::max(vsize, double(std::fabs(in.V.slice_data(s)[r * in.V.row_stride() + col])));
    const std::size_t B = std::max(c.q.back(4), c.k.back(4));
    std::size_t bad = 0;
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h) {
            const test_ref::Grid want = oracle(c, in, b, h, H, G);
            const float* p = got.slice_data(b * H + h);
            for (std::size_t i = 0; i < want.size(); ++i)
                for (std::size_t j = 0; j < want[i].size(); ++j) {
                    const double g = p[i * got.row_stride() + j], w = want[i][j];
                    bad += !(std::fabs(g - w) <= 1e-5 * std::fabs(w) + 2e-6 * vsize);
                }
        }
    return bad;
}

}  // namespace

TEST_CASE("half_to_float and the kernels' table of every float16: each value, signed zeros, infinities and NaN with their sign") {
    for (std::uint32_t h = 0; h < 0x10000; ++h) {
        const auto bits = std::uint16_t(h);
        INFO("h = " << h);
        for (const float f : {attn::half_to_float(bits), attn::kernels::half_floats.value[h]}) {
            CHECK(std::signbit(f) == bool(h & 0x8000));
            if (((h >> 10) & 0x1f) != 0x1f) CHECK(double(f) == half_value(bits));
            else if (h & 0x3ff) CHECK(std::isnan(f));
            else CHECK(f == ((h & 0x8000) ? -1.0f : 1.0f) * std::numeric_limits<float>::infinity());
        }
    }
}

TEST_CASE("float_to_half rounds to nearest even; every float16 round-trips") {
    for (std::uint32_t h = 0; h < 0x10000; ++h) {
        const auto bits = std::uint16_t(h);
        if (((h >> 10) & 0x1f) == 0x1f) continue;  // inf and NaN below
        const float f = attn::half_to_float(bits);
        REQUIRE(double(f) == half_value(bits));
        REQUIRE(attn::float_to_half(f) == bits);
        // Halfway to the next float16 up in magnitude (exact in float): ties go to the even one.
        if ((h & 0x7fff) < 0x7bff) {
            const double up = half_value(std::uint16_t(h + 1));
            const float mid = float((half_value(bits) + up) / 2);
            REQUIRE(double(mid) == (half_value(bits) + up) / 2);
            const std::uint16_t even = (h & 1) ? std::uint16_t(h + 1) : bits;
            INFO("h = " << h);
            CHECK(attn::float_to_half(mid) == even);
            CHECK(attn::float_to_half(std::nextafter(mid, 0.0f)) == bits);
            CHECK(attn::float_to_half(std::nextafter(mid, mid * 2)) == std::uint16_t(h + 1));
        }
    }
    CHECK(attn::float_to_half(65519.996f) == 0x7bff);  // below the halfway point to 65536
    CHECK(attn::float_to_half(65520.0f) == 0x7c00);    // the halfway point: to even, inf
    CHECK(attn::float_to_half(-1e30f) == 0xfc00);
    CHECK(attn::float_to_half(INFINITY) == 0x7c00);
    CHECK(std::isnan(attn::half_to_float(attn::float_to_half(NAN))));
    CHECK(attn::float_to_half(std::ldexp(1.0f, -25)) == 0x0000);       // tie between 0 and 2^-24: 0
    CHECK(attn::float_to_half(std::ldexp(3.0f, -25)) == 0x0002);       // tie between 1 and 2 units: 2
    CHECK(attn::float_to_half(std::ldexp(1.0f, -26)) == 0x0000);
    CHECK(attn::float_to_half(-std::ldexp(1.0f, -14)) == 0x8400);      // the smallest normal
}

TEST_CASE("npy_half_bytes writes what numpy.save writes for a '<f2' array") {
    // np.save(f, np.array([[1.0, -2.5, 65504.0], [2**-14, 2**-24, 0.1]], dtype='<f2')), numpy 1.24.2.
    Tensor t(Shape{2, 3});
    const float values[6] = {1.0f, -2.5f, 65504.0f, std::ldexp(1.0f, -14), std::ldexp(1.0f, -24), 0.1f};
    for (std::size_t i = 0; i < 6; ++i) t.slice_data(0)[(i / 3) * t.row_stride() + i % 3] = values[i];
    std::string header = "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }";
    header.append(128 - 10 - header.size() - 1, ' ');
    header += '\n';
    const std::string want = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + header +
                             std::string("\x00\x3c\x00\xc1\xff\x7b\x00\x04\x01\x00\x66\x2e", 12);
    CHECK(attn::io::npy_half_bytes(t.view()) == want);
}

TEST_CASE("K/V inputs: a '<f2' .npy stays float16, every other input is read as float32") {
    std::mt19937 rng(11);
    const Tensor x = random_tensor(Shape{2, 3, 37}, rng, 2.0f);
    const std::string f2 = attn::io::npy_half_bytes(x.view());
    const attn::io::KVInput h = attn::io::parse_kv_tensor(f2, "k.npy");
    REQUIRE(h.half());
    CHECK(h.f32.rank() == 0);
    CHECK(h.shape() == x.shape());
    CHECK(h.rows() == 3);
    CHECK(h.cols() == 37);
    // The halves are the file's, bit for bit, and widen to what the float32 reader gives.
    const Tensor widened = attn::io::parse_npy_tensor(f2, "k.npy");
    const Tensor back = attn::to_float(h.view());
    for (std::size_t s = 0; s < 2; ++s)
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t c = 0; c < 37; ++c) {
                const float v = x.slice_data(s)[r * x.row_stride() + c];
                CHECK(h.f16.slice_data(s)[r * h.f16.row_stride() + c] == attn::float_to_half(v));
                CHECK(back.slice_data(s)[r * back.row_stride() + c] ==
                      widened.slice_data(s)[r * widened.row_stride() + c]);
            }
    CHECK(h.view().type == attn::ElementType::f16);

    // float32 npy and text are float32.
    const attn::io::KVInput f = attn::io::parse_kv_tensor(attn::io::npy_bytes(x.view()), "k.npy");
    CHECK_FALSE(f.half());
    CHECK(f.shape() == x.shape());
    CHECK(f.view().type == attn::ElementType::f32);
    const attn::io::KVInput t = attn::io::parse_kv_tensor("1 2\n3 4\n", "k.txt");
    CHECK_FALSE(t.half());
    CHECK(t.f32.slice_data(0)[t.f32.row_stride() + 1] == 4.0f);

    // A non-finite half is refused with the float32 reader's message (its position named).
    std::string bad = f2;
    const std::size_t data = bad.size() - 2 * 2 * 3 * 37;
    const std::size_t at = data + 2 * (37 + 5);  // row 2, column 6 of the first matrix
    bad[at] = '\x00', bad[at + 1] = '\x7c';     // +inf
    std::string message;
    try {
        (void)attn::io::parse_kv_tensor(bad, "k.npy");
    } catch (const attn::InputError& e) {
        message = e.what();
    }
    CHECK(message == "k.npy: index [0, 1, 5] (0-based): non-finite value 'inf' is not allowed here");
    // Big-endian halves are read as float32 (widened), the same values.
    std::string be = f2;
    be.replace(be.find("'<f2'"), 5, "'>f2'");
    for (std::size_t i = data; i + 1 < be.size(); i += 2) std::swap(be[i], be[i + 1]);
    const attn::io::KVInput b = attn::io::parse_kv_tensor(be, "k.npy");
    CHECK_FALSE(b.half());
    CHECK(b.f32.slice_data(1)[2 * b.f32.row_stride() + 36] == widened.slice_data(1)[2 * widened.row_stride() + 36]);
}

TEST_CASE("HalfTensor views and widening keep every element in place") {
    std::mt19937 rng(5);
    const Tensor x = random_tensor(Shape{2, 3, 5, 37}, rng, 2.0f);
    const HalfTensor h = attn::to_half(x.view());
    CHECK(h.row_stride() % HalfTensor::stride_quantum == 0);
    const Tensor back = attn::to_float(h.view());
    for (std::size_t s = 0; s < x.slices(); ++s)
        for (std::size_t r = 0; r < 5; ++r)
            for (std::size_t c = 0; c < 37; ++c) {
                const float v = x.slice_data(s)[r * x.row_stride() + c];
                CHECK(back.slice_data(s)[r * back.row_stride() + c] == attn::half_to_float(attn::float_to_half(v)));
                CHECK(h.slice_data(s)[r * h.row_stride() + c] == attn::float_to_half(v));
            }
}

const attn::ElementType kv_types[] = {attn::ElementType::f16, attn::ElementType::bf16, attn::ElementType::q8_0};

TEST_CASE("float16, bfloat16 and q8_0 K/V: decoding, fused and materialised attention match the float64 oracle, every arch") {
    ArchGuard guard;
    for (attn::Arch arch : arches())
        for (attn::ElementType type : kv_types) {
        attn::set_arch(arch);
        unsigned seed = 21;
        for (const Case& c : cases()) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", " << std::string(attn::element_type_name(type))
                         << ", case " << c.name);
            const Inputs in = make_inputs(c, seed++, type);
            CHECK(in.K16.view().type == type);
            const attn::BatchedAttention half = attn::batched_attention(in.Q.view(), in.K16.view(), in.V16.view(), in.spec);
            CHECK(half.fused);
            CHECK(half.split_keys == (c.q.back(2) <= attn::decode_max_rows));
            const std::size_t H = half.heads, G = half.kv_heads;
            CHECK(mismatches(half.context, c, in, H, G) == 0);
            // The float32 kernels on the same (rounded) values agree with it as closely.
            const attn::BatchedAttention single = attn::batched_attention(in.Q.view(), in.K.view(), in.V.view(), in.spec);
            CHECK(mismatches(single.context, c, in, H, G) == 0);
            CHECK(half.masked_rows == single.masked_rows);
            // Weights asked: the materialised path (float16 widened once).
            attn::AttentionWants w;
            w.weights = true;
            const attn::BatchedAttention mat = attn::batched_attention(in.Q.view(), in.K16.view(), in.V16.view(), in.spec, w);
            CHECK(!mat.fused);
            CHECK(mismatches(mat.context, c, in, H, G) == 0);
            // K float16 and V float32 (or the reverse): widened, the same answer.
            const attn::BatchedAttention mixed = attn::batched_attention(in.Q.view(), in.K16.view(), in.V.view(), in.spec);
            CHECK(mismatches(mixed.context, c, in, H, G) == 0);
        }
    }
}

TEST_CASE("float16, bfloat16 and q8_0 K/V: the same bits for threads 1, 2, 3 and 7, decoding and prefill") {
    ArchGuard guard;
    for (attn::Arch arch : arches())
        for (attn::ElementType type : kv_types) {
        attn::set_arch(arch);
        unsigned seed = 70;
        for (const Case& c : cases()) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", " << std::string(attn::element_type_name(type))
                         << ", case " << c.name);
            const Inputs in = make_inputs(c, seed++, type);
            attn::set_threads(1);
            const attn::BatchedAttention one = attn::batched_attention(in.Q.view(), in.K16.view(), in.V16.view(), in.spec);
            for (unsigned t : {2u, 3u, 7u}) {
                attn::set_threads(t);
                const attn::BatchedAttention other =
                    attn::batched_attention(in.Q.view(), in.K16.view(), in.V16.view(), in.spec);
                CHECK(same_bits(one.context, other.context));
            }
        }
    }
}

TEST_CASE("every K/V type: a query head decoded with 2, 3, 5 or 8 heads of its grouped-query group has the same bits") {
    // The decoding kernel loads each K/V row once for all the query rows of a group (up to 8),
    // by loops unrolled for their number (keys per pass, column blocks; q8_0 applies its block
    // scales in them): a row's operations, and so its bits, must not depend on that number.
    // (One row alone runs longer tiles, with other online-softmax steps: not compared.)
    ArchGuard guard;
    struct Dims {
        std::size_t dk, dv, Tk;
    };
    for (attn::Arch arch : arches())
        for (const Dims dims : {Dims{37, 40, 700}, Dims{128, 128, 1500}, Dims{64, 33, 90}})
            for (int t = 0; t < 4; ++t) {
                attn::set_arch(arch);
                std::mt19937 rng(unsigned(dims.dk * 10 + t));
                const Tensor Q = random_tensor(Shape{1, 8, 1, dims.dk}, rng, 1.5f);
                const Tensor K = random_tensor(Shape{1, 1, dims.Tk, dims.dk}, rng, 1.5f);
                const Tensor V = random_tensor(Shape{1, 1, dims.Tk, dims.dv}, rng, 1.0f);
                INFO("arch " << std::string(attn::arch_name(arch)) << ", d = " << dims.dk << ", type "
                             << (t < 3 ? std::string(attn::element_type_name(kv_types[t])) : "f32"));
                const HalfTensor K16 = attn::to_kv(K.view(), t < 3 ? kv_types[t] : attn::ElementType::f16);
                const HalfTensor V16 = attn::to_kv(V.view(), t < 3 ? kv_types[t] : attn::ElementType::f16);
                const attn::KVView k = t < 3 ? K16.view() : attn::KVView(K.view());
                const attn::KVView v = t < 3 ? V16.view() : attn::KVView(V.view());
                const attn::BatchedAttention all = attn::batched_attention(Q.view(), k, v, {});
                REQUIRE(all.split_keys);
                for (std::size_t H : {2u, 3u, 5u}) {
                    Tensor q(Shape{1, H, 1, dims.dk});
                    for (std::size_t h = 0; h < H; ++h)
                        std::memcpy(q.slice_data(h), Q.slice_data(h), dims.dk * sizeof(float));
                    const attn::BatchedAttention some = attn::batched_attention(q.view(), k, v, {});
                    for (std::size_t h = 0; h < H; ++h) {
                        INFO(H << " heads, head " << h);
                        CHECK(std::memcmp(some.context.slice_data(h), all.context.slice_data(h),
                                          dims.dv * sizeof(float)) == 0);
                    }
                }
            }
}

TEST_CASE("read-bandwidth probe of every arch: an exact sum over awkward lengths") {
    for (const auto& k : attn::kernels::compiled_kernel_sets()) {
        if (!k.read_sum || !attn::arch_supported(k.arch)) continue;
        INFO("arch " << std::string(attn::arch_name(k.arch)));
        std::vector<float> v(5000);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = float(i % 7);  // small integers: every sum exact
        for (std::size_t n : {0u, 1u, 15u, 16u, 17u, 127u, 128u, 129u, 4999u}) {
            double want = 0;
            for (std::size_t i = 0; i < n; ++i) want += v[i];
            CHECK(double(k.read_sum(v.data(), n)) == want);
        }
    }
}
