// TorchGenerator against values produced by PyTorch 1.13 itself (data/rng/make_reference.py:
// torch_avx2.inc from the default x86 build, torch_scalar.inc with ATEN_CPU_CAPABILITY=default),
// compared bit for bit, plus the anchors quoted in ../shared/torch-rng.md.
#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/torch_rng.hpp"

namespace {

struct RefCall {
    char op;  // 'n': normal_(a, b) = randn·b + a;  'u': uniform_(a, b)
    std::vector<std::size_t> shape;
    double a, b;
    std::vector<std::uint32_t> bits;  // every value (small tensors)
    const char* sha256;               // of the little-endian float32 bytes
    std::vector<std::pair<std::size_t, std::uint32_t>> samples;  // large tensors
};
struct RefSequence {
    const char* name;
    std::uint64_t seed;
    std::vector<RefCall> calls;
};

const RefSequence avx2_reference[] = {
#include "../../../data/rng/torch_avx2.inc"
};
const RefSequence scalar_reference[] = {
#include "../../../data/rng/torch_scalar.inc"
};

// ---- a small SHA-256 (FIPS 180-4), enough to hash a tensor's bytes ----------------------
std::string sha256_hex(const std::vector<std::uint8_t>& msg) {
    static constexpr std::uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    std::uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                          0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    std::vector<std::uint8_t> m = msg;
    const std::uint64_t bit_len = std::uint64_t(msg.size()) * 8;
    m.push_back(0x80);
    while (m.size() % 64 != 56) m.push_back(0);
    for (int i = 7; i >= 0; --i) m.push_back(std::uint8_t(bit_len >> (8 * i)));
    auto rotr = [](std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
    for (std::size_t off = 0; off < m.size(); off += 64) {
        std::uint32_t w[64];
        for (int i = 0; i < 16; ++i)
            w[i] = std::uint32_t(m[off + 4 * i]) << 24 | std::uint32_t(m[off + 4 * i + 1]) << 16 |
                   std::uint32_t(m[off + 4 * i + 2]) << 8 | std::uint32_t(m[off + 4 * i + 3]);
        for (int i = 16; i < 64; ++i) {
            const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
        for (int i = 0; i < 64; ++i) {
            const std::uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
            const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
        }
        h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
    }
    std::string out;
    char buf[9];
    for (std::uint32_t x : h) {
        std::snprintf(buf, sizeof buf, "%08x", x);
        out += buf;
    }
    return out;
}

std::string sha256_of_floats(const std::vector<float>& v) {
    std::vector<std::uint8_t> bytes;
    for (float f : v) {
        const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
        for (int i = 0; i < 4; ++i) bytes.push_back(std::uint8_t(u >> (8 * i)));
    }
    return sha256_hex(bytes);
}

std::uint32_t bits_of(float f) { return std::bit_cast<std::uint32_t>(f); }

void check_sequences(const RefSequence* begin, const RefSequence* end, attn::TorchKernel kernel) {
    for (const RefSequence* seq = begin; seq != end; ++seq) {
        attn::TorchGenerator gen(seq->seed, kernel);
        for (std::size_t c = 0; c < seq->calls.size(); ++c) {
            const RefCall& call = seq->calls[c];
            const std::string sequence = seq->name;
            CAPTURE(sequence);
            CAPTURE(c);
            const std::vector<float> v = call.op == 'n' ? gen.randn(call.shape, call.a, call.b)
                                                        : gen.rand(call.shape, call.a, call.b);
            REQUIRE(v.size() == attn::shape_numel(call.shape));
            CHECK(sha256_of_floats(v) == call.sha256);
            std::size_t bad = 0;
            for (std::size_t i = 0; i < call.bits.size(); ++i) bad += bits_of(v[i]) != call.bits[i];
            for (const auto& [pos, b] : call.samples) bad += bits_of(v[pos]) != b;
            CHECK(bad == 0);
        }
    }
}

}  // namespace

TEST_CASE("sha256 helper: FIPS 180-4 test vectors") {
    CHECK(sha256_hex({}) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex({'a', 'b', 'c'}) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    CHECK(sha256_hex(std::vector<std::uint8_t>(two_blocks.begin(), two_blocks.end())) ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("torch rng: MT19937 engine equals std::mt19937 seeded with the low 32 bits") {
    attn::TorchGenerator gen(5489u);
    // The C++ standard fixes the 10000th output of mt19937 with the default seed 5489.
    std::uint32_t x = 0;
    for (int i = 0; i < 10000; ++i) x = gen.random();
    CHECK(x == 4123659995u);
    attn::TorchGenerator high((std::uint64_t(1) << 40) + 5489u);  // only the low 32 bits matter
    for (int i = 0; i < 9999; ++i) high.random();
    CHECK(high.random() == 4123659995u);
}

TEST_CASE("torch rng: anchors of torch-rng.md") {
    attn::TorchGenerator gen(123);
    const std::vector<float> wq = gen.randn({3, 2});
    const std::uint32_t expected_wq[6] = {0xbde448df, 0x3df680d9, 0xbebd40bc, 0xbe763021, 0xbf9934d1, 0x3e564ab5};
    for (int i = 0; i < 6; ++i) CHECK(bits_of(wq[i]) == expected_wq[i]);
    CHECK(bits_of(gen.randn({3, 2})[0]) == 0xbf78ec42u);
    CHECK(bits_of(gen.randn({3, 2})[0]) == 0x3e709cdfu);

    gen.manual_seed(42);
    const std::vector<float> a = gen.randn({4, 8, 2});
    CHECK(bits_of(a[0]) == 0x3ff6a529u);
    CHECK(bits_of(a[63]) == 0x3fb11825u);
    CHECK(sha256_of_floats(a).substr(0, 16) == "a0f3181735f59e84");
    const std::vector<float> b = gen.randn({4, 8, 32});
    CHECK(bits_of(b[0]) == 0x3fb8fa25u);
    CHECK(bits_of(b[1023]) == 0xbf6d5bd4u);
    CHECK(sha256_of_floats(b).substr(0, 16) == "f0610a6f4efa7bbe");

    gen.manual_seed(92);
    const std::vector<float> q = gen.randn({4, 8, 32, 512});
    const std::vector<float> k = gen.randn({4, 8, 32, 512});
    CHECK(bits_of(q[0]) == 0x3fbd1f5bu);
    CHECK(bits_of(q.back()) == 0x3f623741u);
    CHECK(sha256_of_floats(q).substr(0, 16) == "72a201da207cc81f");
    CHECK(bits_of(k[0]) == 0x3f2ad868u);
    CHECK(bits_of(k.back()) == 0xbf294b96u);
    CHECK(sha256_of_floats(k).substr(0, 16) == "5aabef4c6b841dae");
}

TEST_CASE("torch rng: seed 0 — the serial cache survives block-path calls") {
    attn::TorchGenerator gen(0);
    CHECK(bits_of(gen.randn({15})[0]) == 0x3fc53f5cu);
    CHECK(gen.cached_normal().has_value());  // 15 is odd: one sine left over
    CHECK(bits_of(gen.randn({16})[0]) == 0xbf1d13c8u);
    gen.randn({17});
    gen.randn({33});
    CHECK(gen.cached_normal().has_value());
    const std::vector<float> last = gen.randn({1});
    CHECK(bits_of(last[0]) == 0x3dfb4acau);  // 0.122701243, no MT output consumed
    CHECK(!gen.cached_normal().has_value());
    gen.manual_seed(0);
    CHECK(!gen.cached_normal().has_value());
}

TEST_CASE("torch rng: avx2 flavour equals PyTorch 1.13 (x86 build) bit for bit") {
    check_sequences(std::begin(avx2_reference), std::end(avx2_reference), attn::TorchKernel::avx2);
}

TEST_CASE("torch rng: scalar flavour equals PyTorch 1.13 with ATEN_CPU_CAPABILITY=default") {
    check_sequences(std::begin(scalar_reference), std::end(scalar_reference), attn::TorchKernel::scalar);
}

TEST_CASE("torch rng: the two flavours differ on large tensors, agree on the serial path") {
    attn::TorchGenerator a(92, attn::TorchKernel::avx2), s(92, attn::TorchKernel::scalar);
    const std::vector<float> va = a.randn({4096}), vs = s.randn({4096});
    std::size_t differ = 0;
    for (std::size_t i = 0; i < va.size(); ++i) differ += bits_of(va[i]) != bits_of(vs[i]);
    CHECK(differ > 0);
    const std::vector<float> sa = a.randn({15}), ss = s.randn({15});
    for (std::size_t i = 0; i < sa.size(); ++i) CHECK(bits_of(sa[i]) == bits_of(ss[i]));
}

TEST_CASE("torch rng: matrices, empty tensors, shape checks") {
    attn::TorchGenerator a(123), b(123);
    const attn::Matrix m = a.randn_matrix(3, 2);
    const std::vector<float> v = b.randn({3, 2});
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < 2; ++c) CHECK(bits_of(m(r, c)) == bits_of(v[r * 2 + c]));
    CHECK(a.randn({0}).empty());
    CHECK(a.randn({4, 0, 3}).empty());
    CHECK(attn::shape_numel({}) == 1);
    CHECK_THROWS_AS(attn::shape_numel({std::size_t(1) << 40, std::size_t(1) << 40}), attn::UsageError);
    CHECK(attn::parse_torch_kernel("scalar") == attn::TorchKernel::scalar);
    CHECK_THROWS_AS(attn::parse_torch_kernel("avx512"), attn::UsageError);
}
