// What the CPU and OS can run, detected once (and which core it is, where tuning differs).
// The arch table's cpu_predicate column (arch/arches.def) names one member per arch; the
// members name CPU features, not arches, so that two arches may share one (a narrower set
// needs no more than a wider one).
#pragma once

namespace attn {

struct CpuFeatures {
    bool always = true;                // every CPU (the scalar kernels)
    bool avx2_fma_f16c = false;        // x86: AVX2, FMA and F16C, with the OS saving YMM state
    bool avx512_f_dq_vl_bw = false;    // x86: those and AVX-512 F, DQ, VL, BW, the OS saving ZMM state
    bool aarch64_asimd = false;        // aarch64: Advanced SIMD (mandatory there)
    // Not a feature: a core whose tuning differs (attention/decoding.cpp's software prefetch).
    bool amd_family_1ah = false;       // x86: AMD, CPU family 1Ah (Zen 5)
    CpuFeatures() noexcept;            // runs the detection (runtime/arch.cpp)
};

const CpuFeatures& cpu_features() noexcept;  // detected at the first call

}  // namespace attn
