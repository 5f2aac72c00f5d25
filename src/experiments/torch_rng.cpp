// PyTorch's CPU generator (see include/attn/torch_rng.hpp).
// Compiled with -ffp-contract=off: every float operation below is rounded on its own unless
// it is written as std::fmaf / std::fma, which is exactly where torch's x86 build fuses.
#include "attn/torch_rng.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "attn/error.hpp"
#include "runtime/did_you_mean.hpp"
#include "runtime/system_memory.hpp"

#if defined(__FAST_MATH__)
#error "torch_rng.cpp must not be compiled with -ffast-math: it would change the generator's bits"
#endif

namespace attn {

const char* torch_kernel_name(TorchKernel kernel) noexcept { return kernel == TorchKernel::avx2 ? "avx2" : "scalar"; }

TorchKernel parse_torch_kernel(std::string_view name) {
    if (name == "avx2") return TorchKernel::avx2;
    if (name == "scalar") return TorchKernel::scalar;
    throw SettingError("torch-kernel", "invalid ",
                       " '" + std::string(name) + "': expected avx2 or scalar" +
                           did_you_mean(name, {torch_kernel_name(TorchKernel::avx2),
                                               torch_kernel_name(TorchKernel::scalar)}));
}

std::size_t shape_numel(const std::vector<std::size_t>& shape) {
    std::size_t n = 1;
    for (std::size_t d : shape) {
        if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d) throw UsageError("tensor shape too large");
        n *= d;
    }
    return n;
}

// ---- MT19937 (init_genrand seeding, as at::mt19937) -------------------------------------

TorchGenerator::TorchGenerator(std::uint64_t seed, TorchKernel kernel) : kernel_(kernel) { manual_seed(seed); }

void TorchGenerator::manual_seed(std::uint64_t seed) {
    state_[0] = std::uint32_t(seed & 0xFFFFFFFFu);  // only the low 32 bits matter
    for (std::uint32_t j = 1; j < 624; ++j)
        state_[j] = 1812433253u * (state_[j - 1] ^ (state_[j - 1] >> 30)) + j;
    left_ = 1;
    next_ = 0;
    next_double_normal_.reset();
}

void TorchGenerator::twist() noexcept {
    for (int i = 0; i < 624; ++i) {
        const std::uint32_t y = (state_[i] & 0x80000000u) | (state_[(i + 1) % 624] & 0x7FFFFFFFu);
        state_[i] = state_[(i + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908B0DFu : 0u);
    }
    left_ = 624;
    next_ = 0;
}

std::uint32_t TorchGenerator::random() noexcept {
    if (--left_ == 0) twist();
    std::uint32_t y = state_[next_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9D2C5680u;
    y ^= (y << 15) & 0xEFC60000u;
    y ^= y >> 18;
    return y;
}

std::uint64_t TorchGenerator::random64() noexcept {
    const std::uint64_t hi = random();
    const std::uint64_t lo = random();
    return (hi << 32) | lo;
}

float TorchGenerator::uniform_float() noexcept { return float(random() & 0xFFFFFFu) * 0x1p-24f; }

double TorchGenerator::uniform_double() noexcept {
    return double(random64() & ((std::uint64_t(1) << 53) - 1)) * 0x1p-53;
}

// ---- serial path: double Box–Muller, second sample cached across calls ------------------

double TorchGenerator::serial_normal() noexcept {
    if (next_double_normal_) {
        const double v = *next_double_normal_;
        next_double_normal_.reset();
        return v;
    }
    const double u1 = uniform_double();
    const double u2 = uniform_double();
    const double r = std::sqrt(-2.0 * std::log(1.0 - u2));  // torch 1.13 (2.x: log1p(-u2), same floats)
    const double theta = 2.0 * 3.14159265358979323846 * u1;
    next_double_normal_ = r * std::sin(theta);
    return r * std::cos(theta);
}

// ---- the AVX2 kernel's float32 math (Cephes-style avx_mathfun.h), fused where GCC fused --

namespace {

float from_bits(std::uint32_t b) noexcept { return std::bit_cast<float>(b); }
std::uint32_t bits(float f) noexcept { return std::bit_cast<std::uint32_t>(f); }

// log256_ps for x in (0, 1]; the input never is <= 0 here (u1 = 1 - k/2^24 >= 2^-24).
float avx2_log(float x) noexcept {
    const float SQRTHF = from_bits(0x3f3504f3u);
    constexpr float P[9] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                            -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                            2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};
    constexpr float Q1 = -2.12194440e-4f, Q2 = 0.693359375f;

    x = std::fmax(x, 0x1p-126f);
    const std::int32_t e_int = std::int32_t(bits(x) >> 23) - 127;
    x = from_bits((bits(x) & 0x807FFFFFu) | 0x3F000000u);  // mantissa in [0.5, 1)
    float e = float(e_int) + 1.0f;
    float tmp = 0.0f;
    if (x < SQRTHF) {
        tmp = x;
        e = e - 1.0f;
    }
    x = x - 1.0f;
    x = x + tmp;
    const float z = x * x;
    float y = P[0];
    for (int i = 1; i < 9; ++i) y = std::fmaf(y, x, P[i]);
    y = y * x;
    const float eq1 = e * Q1;
    y = std::fmaf(y, z, eq1);
    y = std::fmaf(-z, 0.5f, y);
    const float xy = x + y;
    return std::fmaf(e, Q2, xy);
}

// sincos256_ps for x in [0, 2π).
void avx2_sincos(float x, float& s, float& c) noexcept {
    constexpr float FOPI = 1.27323954473516f;
    const float DP1 = from_bits(0xbf490000u), DP2 = from_bits(0xb97da000u), DP3 = from_bits(0xb3222169u);
    constexpr float S0 = -1.9515295891E-4f, S1 = 8.3321608736E-3f, S2 = -1.6666654611E-1f;
    constexpr float C0 = 2.443315711809948E-5f, C1 = -1.388731625493765E-3f, C2 = 4.166664568298827E-2f;

    std::uint32_t sign_sin = bits(x) & 0x80000000u;
    x = std::fabs(x);
    std::int32_t j = std::int32_t(x * FOPI);  // cvttps: truncation
    j = (j + 1) & ~1;
    const float y = float(j);
    const std::uint32_t swap_sin = std::uint32_t(j & 4) << 29;
    const bool poly_is_sin = (j & 2) == 0;
    x = std::fmaf(y, DP1, x);
    x = std::fmaf(y, DP2, x);
    x = std::fmaf(y, DP3, x);
    const std::uint32_t sign_cos = std::uint32_t((~(j - 2)) & 4) << 29;
    sign_sin ^= swap_sin;
    const float z = x * x;

    float yc = C0;
    yc = std::fmaf(yc, z, C1);
    yc = std::fmaf(yc, z, C2);
    yc = yc * z;
    const float half_z = z * 0.5f;
    yc = std::fmaf(yc, z, -half_z);
    yc = yc + 1.0f;

    float ys = S0;
    ys = std::fmaf(ys, z, S1);
    ys = std::fmaf(ys, z, S2);
    ys = ys * z;
    ys = std::fmaf(ys, x, x);

    const float sv = (poly_is_sin ? ys : yc) + 0.0f;
    const float cv = (poly_is_sin ? yc : ys) + 0.0f;
    s = from_bits(bits(sv) ^ sign_sin);
    c = from_bits(bits(cv) ^ sign_cos);
}

}  // namespace

// Lane j (radius from d[j]) and lane j+8 (angle from d[j+8]) make one Box–Muller pair.
void TorchGenerator::block16(float* d, float mean, float std) const noexcept {
    for (int j = 0; j < 8; ++j) {
        const float u1 = 1.0f - d[j];  // (0, 1]
        const float u2 = d[j + 8];     // [0, 1)
        if (kernel_ == TorchKernel::avx2) {
            const float radius = std::sqrt(-2.0f * avx2_log(u1));
            float s, c;
            avx2_sincos(6.2831855f * u2, s, c);
            const float n1 = radius * c;
            const float n2 = radius * s;
            d[j] = std::fmaf(n1, std, mean);
            d[j + 8] = std::fmaf(n2, std, mean);
        } else {
            // normal_fill_16: float libm calls, angle computed in double and rounded.
            const float radius = std::sqrt(-2.0f * logf(u1));
            const float theta = float(2.0 * 3.14159265358979323846 * double(u2));
            const float n1 = radius * cosf(theta);
            const float n2 = radius * sinf(theta);
            d[j] = n1 * std + mean;
            d[j + 8] = n2 * std + mean;
        }
    }
}

// ---- normal_ / uniform_ -----------------------------------------------------------------

void TorchGenerator::normal_fill(float* out, std::size_t n, double mean, double std) {
    if (n < 16) {
        // Serial path: normal_distribution<double>, then val * std + mean in double (the x86
        // build fuses it), rounded to float.
        for (std::size_t i = 0; i < n; ++i) {
            const double v = serial_normal();
            out[i] = kernel_ == TorchKernel::avx2 ? float(std::fma(v, std, mean)) : float(v * std + mean);
        }
        return;
    }
    const float mean_f = float(mean), std_f = float(std);
    for (std::size_t i = 0; i < n; ++i) out[i] = uniform_float();
    for (std::size_t b = 0; b + 16 <= n; b += 16) block16(out + b, mean_f, std_f);
    if (n % 16 != 0) {
        // Tail rule: 16 fresh uniforms overwrite the last 16 slots (overlapping the last block).
        float* tail = out + (n - 16);
        for (int i = 0; i < 16; ++i) tail[i] = uniform_float();
        block16(tail, mean_f, std_f);
    }
}

void TorchGenerator::uniform_fill(float* out, std::size_t n, double low, double high) {
    const float from = float(low), to = float(high);
    const float range = to - from;
    for (std::size_t i = 0; i < n; ++i) {
        const float x = uniform_float();
        out[i] = kernel_ == TorchKernel::avx2 ? std::fmaf(x, range, from) : x * range + from;
    }
}

std::vector<float> TorchGenerator::randn(const std::vector<std::size_t>& shape, double mean, double std) {
    std::vector<float> v;
    reserve_checked(v, shape_numel(shape));
    v.resize(shape_numel(shape));
    normal_fill(v.data(), v.size(), mean, std);
    return v;
}

std::vector<float> TorchGenerator::rand(const std::vector<std::size_t>& shape, double low, double high) {
    std::vector<float> v;
    reserve_checked(v, shape_numel(shape));
    v.resize(shape_numel(shape));
    uniform_fill(v.data(), v.size(), low, high);
    return v;
}

namespace {
Matrix to_matrix(const std::vector<float>& v, std::size_t rows, std::size_t cols) {
    Matrix m(rows, cols);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) m(r, c) = v[r * cols + c];
    return m;
}
}  // namespace

Matrix TorchGenerator::randn_matrix(std::size_t rows, std::size_t cols) {
    return to_matrix(randn({rows, cols}), rows, cols);
}

Matrix TorchGenerator::rand_matrix(std::size_t rows, std::size_t cols) {
    return to_matrix(rand({rows, cols}), rows, cols);
}

}  // namespace attn
