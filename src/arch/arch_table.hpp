// The arch table (arch/arches.def) for C++: each row's Arch value and whether this build
// compiles its kernels. Baseline code only: no xsimd here (the tags are read by the arch
// translation units, arch/kernel_set_of.hpp).
#pragma once
#include <cstddef>

#include "attn/arch.hpp"

// ATTN_ON_HOST_<host>(x...) is x... when this compiler targets the table's host family
// `host`, and nothing otherwise (the same rule the Makefile applies to pick the TUs it
// compiles: `$(CXX) -dumpmachine`'s first field).
#define ATTN_ON_HOST_any(...) __VA_ARGS__
#if defined(__x86_64__)
#define ATTN_ON_HOST_x86_64(...) __VA_ARGS__
#else
#define ATTN_ON_HOST_x86_64(...)
#endif
#if defined(__aarch64__)
#define ATTN_ON_HOST_aarch64(...) __VA_ARGS__
#else
#define ATTN_ON_HOST_aarch64(...)
#endif

namespace attn::arch_table {

// The rows in order: arch_table::row::avx2 is the index of the avx2 row.
enum class row : unsigned char {
#define ATTN_ARCH(name, lanes, tag, host, cpu, flags) name,
#include "arch/arches.def"
#undef ATTN_ARCH
};

inline constexpr std::size_t row_count = 0
#define ATTN_ARCH(name, lanes, tag, host, cpu, flags) +1
#include "arch/arches.def"
#undef ATTN_ARCH
    ;

constexpr Arch arch_of(row r) noexcept { return Arch(static_cast<unsigned char>(r)); }
constexpr std::size_t index_of(Arch a) noexcept { return static_cast<unsigned char>(a); }

// Whether this build compiles the row's kernels (its host family is this compiler's).
inline constexpr bool compiled[] = {
#define ATTN_ARCH(name, lanes, tag, host, cpu, flags) false ATTN_ON_HOST_##host(|| true),
#include "arch/arches.def"
#undef ATTN_ARCH
};

static_assert(row_count >= 1 && arch_of(row::scalar) == Arch::scalar && compiled[0],
              "arches.def: scalar is row 0, compiled on any host");

}  // namespace attn::arch_table
