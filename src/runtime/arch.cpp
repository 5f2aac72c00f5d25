// Run-time arch selection over the arch table (arch/arches.def): names, what this CPU runs,
// the best arch, parsing, and the process-wide choice. Compiled for the baseline ISA.
#include <string>

#include "arch/arch_table.hpp"
#include "attn/error.hpp"
#include "attn/runtime.hpp"
#include "runtime/cpu_features.hpp"
#include "runtime/did_you_mean.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define ATTN_X86 1
#endif

namespace attn {

// Three CPUID leaves and XCR0: a feature counts only when the OS also saves its registers
// (XCR0), which xsimd 8.1's own detection does not check (design notes §2). Not
// __builtin_cpu_supports: it links libgcc's start-up constructor, which runs 12 CPUIDs in
// every process, and on a virtual machine each CPUID traps to the hypervisor (12 µs
// measured on the KVM guests here).
CpuFeatures::CpuFeatures() noexcept {
#if defined(ATTN_X86)
    unsigned max_leaf = 0, b = 0, c = 0, d = 0, a = 0;
    __cpuid(0, max_leaf, b, c, d);
    const bool amd = b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163;  // "AuthenticAMD"
    if (max_leaf < 7) return;
    __cpuid(1, a, b, c, d);
    // The family: bits 8-11, plus the extended family (bits 20-27) when those are 0xF.
    const unsigned base_family = (a >> 8) & 0xf;
    amd_family_1ah = amd && base_family == 0xf && base_family + ((a >> 20) & 0xff) == 0x1a;
    if (!(c & bit_OSXSAVE)) return;  // no XGETBV: the OS manages no AVX state
    // F16C: the avx2 kernels widen float16 keys and values with it (every AVX2 CPU has it).
    const bool avx_fma_f16c = (c & bit_AVX) && (c & bit_FMA) && (c & bit_F16C);
    unsigned xcr0_low = 0, xcr0_high = 0;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    const bool ymm_saved = (xcr0_low & 0x06) == 0x06;  // SSE and AVX state
    const bool zmm_saved = (xcr0_low & 0xe6) == 0xe6;  // and opmask, ZMM0-15 upper halves, ZMM16-31
    __cpuid_count(7, 0, a, b, c, d);
    avx2_fma_f16c = avx_fma_f16c && ymm_saved && (b & bit_AVX2);
    // The avx512 kernels are compiled with F, DQ (hadd), VL and BW (arch/arches.def).
    avx512_f_dq_vl_bw = avx2_fma_f16c && zmm_saved && (b & bit_AVX512F) && (b & bit_AVX512DQ) &&
                        (b & bit_AVX512VL) && (b & bit_AVX512BW);
#elif defined(__aarch64__)
    aarch64_asimd = true;  // Advanced SIMD is mandatory on aarch64
#endif
}

const CpuFeatures& cpu_features() noexcept {
    static const CpuFeatures features;
    return features;
}

namespace {

using arch_table::row_count;

constexpr Arch arches[] = {
#define ATTN_ARCH(name, lanes, tag, host, cpu, flags) arch_table::arch_of(arch_table::row::name),
#include "arch/arches.def"
#undef ATTN_ARCH
};

constexpr const char* names[] = {
#define ATTN_ARCH(name, lanes, tag, host, cpu, flags) #name,
#include "arch/arches.def"
#undef ATTN_ARCH
};

constexpr bool CpuFeatures::* predicates[] = {
#define ATTN_ARCH(name, lanes, tag, host, cpu, flags) &CpuFeatures::cpu,
#include "arch/arches.def"
#undef ATTN_ARCH
};

bool g_arch_forced = false;
Arch g_arch = Arch::scalar;

std::string available_arches() {
    std::string list;
    for (Arch a : arches)
        if (arch_supported(a)) list += (list.empty() ? "" : ", ") + std::string(arch_name(a));
    return list;
}

}  // namespace

std::span<const Arch> all_arches() noexcept { return arches; }

const char* arch_name(Arch arch) noexcept {
    const std::size_t i = arch_table::index_of(arch);
    return i < row_count ? names[i] : "?";
}

bool arch_supported(Arch arch) noexcept {
    const std::size_t i = arch_table::index_of(arch);
    return i < row_count && arch_table::compiled[i] && cpu_features().*predicates[i];
}

Arch best_arch() noexcept {
    Arch best = Arch::scalar;  // the rows go from the plainest to the widest
    for (Arch a : arches)
        if (arch_supported(a)) best = a;
    return best;
}

std::string arch_choices(std::string_view last_separator) {
    std::string list = "auto";
    for (std::size_t i = 0; i < row_count; ++i) {
        list += i + 1 < row_count ? std::string_view(", ") : last_separator;
        list += names[i];
    }
    return list;
}

Arch parse_arch(std::string_view name) {
    if (name == "auto") return best_arch();
    for (Arch a : arches)
        if (name == arch_name(a)) {
            if (!arch_supported(a))
                throw UsageError("this CPU (or this build) cannot run arch " + std::string(name) +
                                 " (available: " + available_arches() + ")");
            return a;
        }
    std::vector<std::string> known{"auto"};
    for (std::size_t i = 0; i < row_count; ++i) known.emplace_back(names[i]);
    throw UsageError("invalid arch '" + std::string(name) + "': expected " + arch_choices(" or ") + did_you_mean(name, known));
}

void set_arch(Arch arch) {
    if (!arch_supported(arch))
        throw UsageError(std::string("this CPU (or this build) cannot run arch ") + arch_name(arch) +
                         " (available: " + available_arches() + ")");
    g_arch = arch;
    g_arch_forced = true;
}

Arch current_arch() noexcept { return g_arch_forced ? g_arch : best_arch(); }

}  // namespace attn
