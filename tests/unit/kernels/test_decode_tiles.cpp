// The split-K decoding kernel (kernels::ARCH::decode_chunk) of every supported arch over
// several of a lone row's long tiles (decode.hpp's long_tile_keys: 1024 to 4096 keys here, by
// the K/V type) against a float64 oracle over the values K and V hold (f16, bf16 rounded,
// q8_0 dequantised): the running max m, the sum l relative to it and the context acc / l. A
// window's first key and a visible limit inside a tile; the engine's chunks seldom hold more
// than one long tile, so the online softmax's rescaling between them is checked here.
#include <doctest/doctest.h>

#include <cmath>
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

}  // namespace

TEST_CASE("decode_chunk: a lone row over several long tiles matches a float64 oracle, per arch and K/V type") {
    const std::size_t Tk = 9000, dk = 72, dv = 40, ldacc = 48, first = 300, visible = 8800;
    const float scale = 0.125f;
    std::mt19937 rng(11);
    const attn::Tensor K = test_util::random_tensor(attn::Shape{Tk, dk}, rng, 1.5f);
    const attn::Tensor V = test_util::random_tensor(attn::Shape{Tk, dv}, rng, 1.0f);
    const attn::Tensor Q = test_util::random_tensor(attn::Shape{dk}, rng, 1.5f);
    for (attn::ElementType type :
         {attn::ElementType::f32, attn::ElementType::f16, attn::ElementType::bf16, attn::ElementType::q8_0}) {
        attn::HalfTensor K16, V16;
        attn::KVView k = K.view(), v = V.view();
        attn::Tensor Kf = K, Vf = V;  // the values the kernel reads, widened
        if (type != attn::ElementType::f32) {
            K16 = attn::to_kv(K.view(), type), V16 = attn::to_kv(V.view(), type);
            k = K16.view(), v = V16.view();
            Kf = attn::to_float(k), Vf = attn::to_float(v);
        }
        // The oracle: scaled scores over the visible keys [first, visible), their max, sum and context.
        std::vector<double> s(Tk), ctx(dv, 0.0);
        double m = -INFINITY, l = 0.0;
        for (std::size_t j = first; j < visible; ++j) {
            double dot = 0.0;
            for (std::size_t p = 0; p < dk; ++p) dot += double(Q.data()[p]) * double(Kf.data()[j * Kf.row_stride() + p]);
            s[j] = double(scale) * dot;
            m = std::max(m, s[j]);
        }
        for (std::size_t j = first; j < visible; ++j) {
            const double w = std::exp(s[j] - m);
            l += w;
            for (std::size_t c = 0; c < dv; ++c) ctx[c] += w * double(Vf.data()[j * Vf.row_stride() + c]);
        }
        for (const attn::test::ArchKernels& kernels : attn::test::supported_arch_kernels()) {
            INFO("arch " << std::string(kernels.name) << ", " << std::string(attn::element_type_name(type)));
            attn::kernels::DecodeRow row{};
            row.q = Q.data(), row.first = first, row.visible = visible;
            std::unique_ptr<float, FreeFloats> acc(attn::aligned_alloc_floats(ldacc));
            float km = 0.0f, kl = 0.0f;
            attn::kernels::DecodeArgs a{};
            a.rows = &row, a.nrows = 1;
            a.K = k.data, a.ldk = k.strides[0], a.V = v.data, a.ldv = v.strides[0];
            a.dk = dk, a.dv = dv, a.scale = scale, a.k_begin = 0, a.k_end = Tk;
            a.acc = acc.get(), a.ldacc = ldacc, a.m = &km, a.l = &kl;
            a.kv_type = attn::to_kernel(type);
            a.long_tiles = true;
            kernels.decode_chunk(a);
            CHECK(std::abs(km - m) <= 1e-5 * std::abs(m));
            // l and acc are relative to e^m: a missed rescaling between tiles moves them by
            // factors far beyond these bounds.
            CHECK(std::abs(kl - l) <= 1e-5 * l);
            double worst = 0.0;
            for (std::size_t c = 0; c < dv; ++c)
                worst = std::max(worst, std::abs(double(acc.get()[c]) / kl - ctx[c] / l));
            CHECK(worst <= 2e-6);
        }
    }
}
