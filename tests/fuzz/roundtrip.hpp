// Invariants shared by the reader harnesses: what a successful parse must satisfy.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "attn/io.hpp"

namespace fuzz {

inline std::uint32_t bits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

[[noreturn]] inline void broken(const char* what) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
}

// A parsed matrix holds only finite numbers (-inf too when allowed); it comes back bit for bit
// through csv (9 significant digits) and through .npy.
inline void check_matrix(const attn::Matrix& m, attn::io::Finite finite) {
    for (std::size_t r = 0; r < m.rows(); ++r)
        for (std::size_t c = 0; c < m.cols(); ++c) {
            const float v = m(r, c);
            if (!attn::io::finite_allows(finite, v))
                broken("a successful parse holds a forbidden non-finite value");
        }
    if (m.rows() == 0 || m.cols() == 0) return;
    attn::io::OutputOptions opt;
    opt.format = attn::io::Format::csv;
    attn::io::Item item;
    item.name = "m";
    item.matrix = &m;
    const std::string csv = attn::io::render({item}, opt);
    const attn::Matrix back = attn::io::parse_matrix(csv, "round-trip.csv", finite);
    const attn::Matrix back_npy = attn::io::parse_matrix(attn::io::npy_bytes(m), "round-trip.npy", finite);
    for (const attn::Matrix* b : {&back, &back_npy}) {
        if (b->rows() != m.rows() || b->cols() != m.cols()) broken("round trip changed the shape");
        for (std::size_t r = 0; r < m.rows(); ++r)
            for (std::size_t c = 0; c < m.cols(); ++c)
                if (bits((*b)(r, c)) != bits(m(r, c))) broken("round trip changed a value's bits");
    }
}

}  // namespace fuzz
