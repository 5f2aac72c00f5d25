// Every float16 value as float32: a table of 2^16 entries, indexed by the half's bits, made at
// compile time from float16.hpp's half_to_float (the same bits; a NaN is its quiet NaN, where
// the widening in registers it replaced kept a NaN's payload). The decoding loops take q8_0
// block scales from it (kv_load.hpp's KvGroups): a table read broadcast into the vector is a
// load, where widening the half in registers takes three vector instructions per scale. Data,
// not code: one definition for every arch. A plain array in a struct, so that the per-arch TUs
// index it without a template function (std::array's operator[], left out of line in the
// sanitizer builds, would be weak code of one arch's flags: design notes §2, tests/e2e/test_arch.sh).
// (ggml keeps the same table for CPUs without F16C.)
#pragma once

namespace attn::kernels {

struct HalfTable {
    float value[65536];
};
extern const HalfTable half_floats;

}  // namespace attn::kernels
