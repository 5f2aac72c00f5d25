#include "kernels/aligned_memory.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

namespace attn::kernels {

// A block is malloc's own block of the size asked for plus the alignment, aligned inside, with
// malloc's pointer stored just before the aligned one. Freed, it is a block of that size again,
// which the next buffer of the same size reuses. (aligned_alloc asks malloc for more than it
// keeps and frees the rest apart; for 64-byte alignment that rest is too small to rejoin the
// block, so a freed buffer's block was too small for the next of its size, which took fresh
// pages: 256 page faults for a T=4096 attention's 1 MiB output in each of a bench's first
// calls, 2 ms on a virtual machine.)
void* alloc_aligned(std::size_t bytes) {
    if (bytes == 0) bytes = 1;
    if (bytes > std::numeric_limits<std::size_t>::max() / 2) throw std::bad_alloc();
    bytes = (bytes + memory_alignment - 1) / memory_alignment * memory_alignment;
    // Large buffers on 2 MiB boundaries, asking for transparent huge pages: one page fault
    // and one TLB entry per 2 MiB instead of 512. Rows far apart read a tile at a time (a
    // Tq×Tk bias) and long K/V caches otherwise miss the TLB row after row (measured: bias
    // 1.33× → 1.17× the unbiased time, decoding about 10% faster). From 2 MiB: a T=4096 mask's
    // 2 MiB of bits took 512 page faults in 4 KiB pages, 4 ms on a virtual machine whose page
    // faults cost about 8 µs each (AMD EPYC guest, 2026-12-07), and one in a 2 MiB page.
    const bool huge = bytes >= huge_page_min_bytes;
    if (huge) bytes = (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
    const std::size_t alignment = huge ? huge_page_bytes : memory_alignment;
    void* base = std::malloc(bytes + alignment + sizeof(void*));
    if (!base) throw std::bad_alloc();
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(base) + sizeof(void*);
    char* p = static_cast<char*>(base) + sizeof(void*) + (alignment - first % alignment) % alignment;
    std::memcpy(p - sizeof(void*), &base, sizeof(void*));
    if (huge) ::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: failure is harmless
    return p;
}

void free_aligned(void* p) noexcept {
    if (!p) return;
    void* base;
    std::memcpy(&base, static_cast<char*>(p) - sizeof(void*), sizeof(void*));
    std::free(base);
}

float* alloc_aligned_floats(std::size_t count) {
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(float)) throw std::bad_alloc();
    return static_cast<float*>(alloc_aligned(count * sizeof(float)));
}

}  // namespace attn::kernels
