// kernels/aligned_memory.cpp: the storage of every tensor and scratch buffer.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "kernels/aligned_memory.hpp"

using attn::kernels::alloc_aligned;
using attn::kernels::free_aligned;

namespace {
std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }
constexpr std::size_t MiB = std::size_t(1) << 20;
}  // namespace

TEST_CASE("alloc_aligned: 64-byte lines, huge pages for large buffers; every byte writable") {
    using attn::kernels::huge_page_bytes, attn::kernels::huge_page_min_bytes;
    const std::size_t large = huge_page_min_bytes;
    const std::size_t sizes[] = {0, 1, 63, 64, 65, 4096, 1 * MiB, large - 64, large - 1, large, large + 1, 9 * MiB + 3};
    for (std::size_t n : sizes) {
        INFO(n);
        void* p = alloc_aligned(n);
        REQUIRE(p != nullptr);
        CHECK(address(p) % attn::kernels::memory_alignment == 0);
        if (n >= large) CHECK(address(p) % huge_page_bytes == 0);
        std::memset(p, 0xab, n);  // a sanitizer build sees a write past the block
        free_aligned(p);
    }
    free_aligned(nullptr);  // as free's
}

TEST_CASE("alloc_aligned: blocks apart and intact while alive") {
    unsigned char* a = static_cast<unsigned char*>(alloc_aligned(1000));
    unsigned char* b = static_cast<unsigned char*>(alloc_aligned(5 * MiB));
    unsigned char* c = static_cast<unsigned char*>(alloc_aligned(1000));
    std::memset(a, 1, 1000), std::memset(b, 2, 5 * MiB), std::memset(c, 3, 1000);
    CHECK(a[0] == 1);
    CHECK(a[999] == 1);
    CHECK(b[0] == 2);
    CHECK(b[5 * MiB - 1] == 2);
    CHECK(c[0] == 3);
    CHECK(c[999] == 3);
    free_aligned(b), free_aligned(a), free_aligned(c);
}

// Sanitizers hold freed memory back on purpose (GCC and clang name them differently). make
// test-sanitize compiles the tests themselves without one and says so in ATTN_SANITIZER.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED_BUILD 1
#endif
#endif

#ifndef SANITIZED_BUILD
TEST_CASE("alloc_aligned: a buffer freed is reused by the next of its size (no fresh pages each call)") {
    // aligned_alloc asked malloc for more than it kept, so the block a buffer was freed into was
    // too small for the next buffer of the same size: each took memory (and page faults) anew.
    if (std::getenv("ATTN_SANITIZER")) return;  // the library's malloc is the sanitizer's
    for (std::size_t n : {std::size_t(4096), 200 * std::size_t(1024), 1 * MiB}) {
        INFO(n);
        free_aligned(alloc_aligned(n));  // past malloc's first-use choices for this size
        void* first = alloc_aligned(n);
        free_aligned(first);
        void* again = alloc_aligned(n);
        CHECK(again == first);
        free_aligned(again);
    }
}
#endif
