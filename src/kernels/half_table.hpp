// Every float16 value as float32: a table of 2^16 entries, indexed by the half's bits, made at
// compile time from float16.hpp's half_to_float (the same bits; a NaN is its quiet NaN, where
// the widening in registers it replaced kept a NaN's payload). The decoding loops take q8_0
// block scales from it (kv_load.hpp's KvGroups): a table read broadcast into the vector is a
// load, where widening the half in registers takes three vector instructions per scale. Data,
// not code: one definition for every arch. (ggml keeps the same table for CPUs without F16C.)
#pragma once
#include <array>
#include <cstdint>

namespace attn::kernels {

extern const std::array<float, 65536> half_floats;

}  // namespace attn::kernels
