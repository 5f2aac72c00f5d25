// Aligned memory, the one allocation the kernels make themselves (per-thread scratch: GEMM
// packing, flash tiles, decoding rows) and the base of every tensor's storage. Compiled once,
// for the baseline ISA, in aligned_memory.cpp: an inline function here would be compiled with
// each arch TU's flags and the linker could pick an AVX-512 copy for all (design notes §2).
// The check of large buffers against the memory the machine has is the tensor layer's
// (attn/matrix.hpp's aligned_alloc_bytes); scratch is O(tile) and never needs it.
#pragma once
#include <cstddef>

namespace attn::kernels {

inline constexpr std::size_t memory_alignment = 64;  // bytes: one cache line, one AVX-512 vector
// Buffers of at least huge_page_min_bytes start on a huge_page_bytes boundary, advised into
// transparent huge pages (aligned_memory.cpp says why).
inline constexpr std::size_t huge_page_bytes = std::size_t(2) << 20;
inline constexpr std::size_t huge_page_min_bytes = std::size_t(2) << 20;

// Allocates `bytes` aligned to memory_alignment, large buffers (above) to 2 MiB in transparent
// huge pages where the system allows; throws std::bad_alloc. Freed by free_aligned.
void* alloc_aligned(std::size_t bytes);
void free_aligned(void* p) noexcept;
// The same for `count` floats.
float* alloc_aligned_floats(std::size_t count);

}  // namespace attn::kernels
