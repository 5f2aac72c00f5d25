// The K/V element types the kernels read, as C++ types a kernel is templated on, and how a
// kernel points into them. ElementType (kernel_types.hpp) names them; each maps to one type:
//   f32  -> float
//   f16  -> std::uint16_t (IEEE half bits)
//   bf16 -> Bf16 (bfloat16 bits: the top half of a float32)
//   q8_0 -> Q8_0, ggml's block_q8_0: blocks of 32 int8 values q with one float16 scale d,
//           value = d·q, laid out as ggml lays them (d, then the 32 values: 34 bytes). A row
//           of n values takes ⌈n/32⌉ blocks, the last padded with zeros; row strides (ld, in
//           elements) are multiples of 32, so every row starts on a block.
// A pointer into K or V is kv_ptr<E>: a plain pointer for the first three, and for q8_0 a
// block array and an element index (Q8Ptr): element e is value e % 32 of block e / 32. The
// kernels' offset arithmetic (p + row·ld + column) reads the same for all four.
// In an anonymous namespace, as float16.hpp (design notes §2: each per-arch TU its own copy).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/float16.hpp"
#include "kernels/kernel_types.hpp"

namespace attn::kernels {
namespace {

struct Bf16 {
    std::uint16_t bits;
};

inline constexpr std::size_t q8_block = 32;  // values per q8_0 block
struct Q8Block {
    std::uint16_t d;  // the scale, float16 bits
    std::int8_t q[q8_block];
};
static_assert(sizeof(Q8Block) == 34, "ggml's block_q8_0: 2 + 32 bytes");
struct Q8_0 {};  // the q8_0 element type's tag

struct Q8Ptr {
    const Q8Block* blocks;
    std::size_t e;  // element index from blocks[0].q[0]
    Q8Ptr operator+(std::size_t n) const noexcept { return {blocks, e + n}; }
    Q8Ptr& operator+=(std::size_t n) noexcept { return e += n, *this; }
    const Q8Block& block() const noexcept { return blocks[e / q8_block]; }
    // The values from element e on (to the end of its block).
    const std::int8_t* values() const noexcept { return block().q + e % q8_block; }
    float scale() const noexcept { return half_to_float(block().d); }
    // Element e + i, dequantised: d·q, exact in float32 (an 8-bit q times an 11-bit d).
    float operator[](std::size_t i) const noexcept {
        const Q8Ptr p = *this + i;
        return p.scale() * float(*p.values());
    }
};

template <class E>
struct KvElement {
    using pointer = const E*;
    static pointer begin(const void* p) noexcept { return static_cast<const E*>(p); }
};
template <>
struct KvElement<Q8_0> {
    using pointer = Q8Ptr;
    static pointer begin(const void* p) noexcept { return {static_cast<const Q8Block*>(p), 0}; }
};
template <class E>
using kv_ptr = typename KvElement<E>::pointer;
// The pointer to K or V's first element (a FlashArgs / DecodeArgs K or V).
template <class E>
kv_ptr<E> kv_begin(const void* p) noexcept {
    return KvElement<E>::begin(p);
}

// The bytes of n elements from p on (n from a row's start: whole blocks for q8_0), and p's
// address: what a prefetch requests.
template <class T>
constexpr std::size_t kv_bytes(const T*, std::size_t n) noexcept {
    return n * sizeof(T);
}
constexpr std::size_t kv_bytes(Q8Ptr, std::size_t n) noexcept {
    return (n + q8_block - 1) / q8_block * sizeof(Q8Block);
}
template <class T>
const void* kv_address(const T* p) noexcept {
    return p;
}
inline const void* kv_address(Q8Ptr p) noexcept { return p.values(); }

// A row's start as the decoding loops walk it (kv_load.hpp's KvGroups): the pointer itself,
// and for q8_0 the row's first block (p on a block's first element, as every row start is).
template <class T>
const T* kv_row(const T* p) noexcept {
    return p;
}
inline const Q8Block* kv_row(Q8Ptr p) noexcept { return p.blocks + p.e / q8_block; }

// One element as float32, exactly (the scalar kernels; q8_0 elements come dequantised from
// Q8Ptr's operator[]).
inline float widen(float x) noexcept { return x; }
inline float widen(std::uint16_t h) noexcept { return half_to_float(h); }
inline float widen(Bf16 b) noexcept { return bfloat16_to_float(b.bits); }

// fn(E{}) for the element type t names: the one switch from ElementType to a kernel's E.
template <class Fn>
decltype(auto) with_element_type(ElementType t, Fn&& fn) {
    switch (t) {
        case ElementType::f16: return fn(std::uint16_t{});
        case ElementType::bf16: return fn(Bf16{});
        case ElementType::q8_0: return fn(Q8_0{});
        case ElementType::f32: break;
    }
    return fn(float{});
}

}  // namespace
}  // namespace attn::kernels
