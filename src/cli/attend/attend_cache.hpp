// --past-k FILE --past-v FILE: a K/V cache, ONNX Attention's past_key / past_value, HF's
// past_key_values. With -q/-k/-v the cached keys and values, ([B,] G, P, d) (or P×d), are
// prepended here to the new ones along the key axis; with -x they are kept, read as (B, G, P, d)
// from the layout --show keys,values print, for the projections to extend (multihead.hpp's
// KVCache). Either way the result is the present cache (ONNX's present_key / present_value,
// what --show keys,values print) and the problem's `past` is P: the queries' causal offset
// becomes P (the causal frontier and the window at p = i + P) and RoPE rotates the new queries
// and keys at P…, the cached keys being rotated already (attn/problem.hpp's AttentionSpec::past).
#pragma once
#include <cstddef>

#include <cxxopts.hpp>

#include "cli/attend/attend_inputs.hpp"
#include "cli/common.hpp"

namespace attn::cli {

// Prepends the cache to a.k and a.v when --past-k / --past-v are given (both or neither) and
// records its length in a.past; refuses, with the options named, what it does not support.
void prepend_cache(const cxxopts::ParseResult& r, InputNames& names, AttendInputs& a);

// --kv-dtype TYPE: a.k and a.v (the present cache, after prepend_cache) stored as TYPE (f32,
// f16, bf16, q8_0; attn/half.hpp's to_kv rounds or quantises), their float32 values as read
// kept in a.kv_f32 (K, V) for --show kv-error. With --rope, K stays as read and
// a.keys_after_rope is TYPE: K is rounded after its rotation (Rope::keys_as), as engines cache
// it. UsageError for an unknown TYPE or with -x; InputError naming -k or -v for a value beyond
// the type's range (with --rope, K's names the key after the rotation: the rope step's).
void store_kv(const cxxopts::ParseResult& r, AttendInputs& a);
ElementType parse_kv_dtype(const std::string& name);

}  // namespace attn::cli
