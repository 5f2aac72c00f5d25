// The split-K decoding kernel (kernels::ARCH::decode_chunk) of every supported arch with and
// without a lone row's software prefetch (DecodeArgs::stream_prefetch, turned off by
// attention/decoding.cpp on some CPUs for large K/V): a request loads nothing, so the running
// max, sum and accumulator must keep their bits. Several long tiles (1024 to 4096 keys by
// type) and a short last one, a window's first key and a visible limit inside a tile, every
// K/V element type.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "arch_kernels.hpp"
#include "attention/kernel_vocabulary.hpp"
#include "attn/half.hpp"
#include "attn/matrix.hpp"
#include "tensor_test_util.hpp"

namespace {

struct FreeFloats {
    void operator()(float* p) const noexcept { attn::aligned_free_floats(p); }
};

struct Chunk {
    std::vector<float> acc;
    float m = 0.0f, l = 0.0f;
};

}  // namespace

TEST_CASE("decode_chunk: a lone row's software prefetch changes no bits, per arch and K/V type") {
    const std::size_t Tk = 9000, dk = 72, dv = 128, ldacc = 128;
    std::mt19937 rng(5);
    const attn::Tensor K = test_util::random_tensor(attn::Shape{Tk, dk}, rng, 1.5f);
    const attn::Tensor V = test_util::random_tensor(attn::Shape{Tk, dv}, rng, 1.0f);
    const attn::Tensor Q = test_util::random_tensor(attn::Shape{dk}, rng, 1.5f);
    for (const attn::test::ArchKernels& kernels : attn::test::supported_arch_kernels())
        for (attn::ElementType type : {attn::ElementType::f32, attn::ElementType::f16, attn::ElementType::bf16,
                                       attn::ElementType::q8_0}) {
            INFO("arch " << std::string(kernels.name) << ", " << std::string(attn::element_type_name(type)));
            attn::HalfTensor K16, V16;
            attn::KVView k = K.view(), v = V.view();
            if (type != attn::ElementType::f32) {
                K16 = attn::to_kv(K.view(), type), V16 = attn::to_kv(V.view(), type);
                k = K16.view(), v = V16.view();
            }
            const auto run = [&](bool prefetch) {
                attn::kernels::DecodeRow row{};
                row.q = Q.data(), row.first = 300, row.visible = 8800;
                std::unique_ptr<float, FreeFloats> acc(attn::aligned_alloc_floats(ldacc));
                Chunk out;
                attn::kernels::DecodeArgs a{};
                a.rows = &row, a.nrows = 1;
                a.K = k.data, a.ldk = k.strides[0], a.V = v.data, a.ldv = v.strides[0];
                a.dk = dk, a.dv = dv, a.scale = 0.125f, a.k_begin = 0, a.k_end = Tk;
                a.acc = acc.get(), a.ldacc = ldacc, a.m = &out.m, a.l = &out.l;
                a.kv_type = attn::to_kernel(type);
                a.long_tiles = true, a.stream_prefetch = prefetch;
                kernels.decode_chunk(a);
                out.acc.assign(acc.get(), acc.get() + dv);
                return out;
            };
            const Chunk with = run(true), without = run(false);
            CHECK(with.l > 0.0f);
            CHECK(std::memcmp(&with.m, &without.m, sizeof(float)) == 0);
            CHECK(std::memcmp(&with.l, &without.l, sizeof(float)) == 0);
            CHECK(std::memcmp(with.acc.data(), without.acc.data(), dv * sizeof(float)) == 0);
        }
}
