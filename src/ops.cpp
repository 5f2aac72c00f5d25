// Public compute entry points. For now every call runs the scalar reference; the SIMD
// dispatch (issue: speed) replaces the bodies, not the signatures.
#include "attn/ops.hpp"

#include <algorithm>
#include <string>
#include <thread>

#include "attn/error.hpp"
#include "attn/reference.hpp"

namespace attn {

namespace {
Arch g_arch = Arch::scalar;
unsigned g_threads = 0;
}  // namespace

const char* arch_name(Arch arch) noexcept {
    switch (arch) {
        case Arch::scalar: return "scalar";
        case Arch::avx2: return "avx2";
        case Arch::avx512: return "avx512";
        case Arch::neon: return "neon";
    }
    return "?";
}

bool arch_supported(Arch arch) noexcept { return arch == Arch::scalar; }
Arch best_arch() noexcept { return Arch::scalar; }

Arch parse_arch(std::string_view name) {
    if (name == "auto") return best_arch();
    for (Arch a : {Arch::scalar, Arch::avx2, Arch::avx512, Arch::neon})
        if (name == arch_name(a)) {
            if (!arch_supported(a))
                throw UsageError("this CPU (or this build) cannot run --arch " + std::string(name));
            return a;
        }
    throw UsageError("invalid --arch '" + std::string(name) + "': expected auto, scalar, avx2, avx512 or neon");
}

void set_arch(Arch arch) {
    if (!arch_supported(arch)) throw UsageError(std::string("this CPU cannot run arch ") + arch_name(arch));
    g_arch = arch;
}
Arch current_arch() noexcept { return g_arch; }
void set_threads(unsigned threads) noexcept { g_threads = threads; }
unsigned current_threads() noexcept { return g_threads ? g_threads : online_cores(); }
unsigned online_cores() noexcept { return std::max(1u, std::thread::hardware_concurrency()); }

std::size_t causal_visible(Causal causal, std::size_t i, std::size_t Tq, std::size_t Tk) noexcept {
    switch (causal) {
        case Causal::none: return Tk;
        case Causal::top_left: return std::min(Tk, i + 1);
        case Causal::bottom_right: {
            // j <= i + (Tk - Tq)  ⇔  visible = i + 1 + Tk - Tq, clamped to [0, Tk]
            const long long v = (long long)i + 1 + (long long)Tk - (long long)Tq;
            return v <= 0 ? 0 : std::min<std::size_t>(Tk, std::size_t(v));
        }
    }
    return Tk;
}

void matmul(const Matrix& A, const Matrix& B, Matrix& C, bool transpose_b) {
    reference::matmul(A, B, C, transpose_b);
}

Matrix matmul(const Matrix& A, const Matrix& B, bool transpose_b) {
    Matrix C;
    matmul(A, B, C, transpose_b);
    return C;
}

std::size_t normalize_rows(Matrix& S, Normalization how, MaskedRowPolicy policy) {
    return reference::normalize_rows(S, how, policy);
}

Matrix fused_attention(const Matrix& Q, const Matrix& K, const Matrix& V, const ScoreMask& sm,
                       MaskedRowPolicy policy, std::size_t* masked_rows) {
    return reference::attention(Q, K, V, sm, policy, masked_rows);
}

}  // namespace attn
