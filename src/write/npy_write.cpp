// Writing .npy files (NumPy's format, version 1.0): the header numpy.save writes, then the
// rows as they lie in memory (float32) or rounded to float16. The reader is read/npy.cpp.
#include <bit>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "attn/half.hpp"
#include "attn/io.hpp"
#include "write/output_file.hpp"
#include "runtime/system_memory.hpp"

namespace attn::io {

namespace {

// Magic, version 1.0 and the header dict of a C-order array of `descr` elements, padded so
// that the data starts at a multiple of 64 bytes (as numpy.save writes it).
std::string npy_preamble(const char* descr, const Shape& shape) {
    std::string dims;
    for (std::size_t i = 0; i < shape.rank(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
    if (shape.rank() == 1) dims += ",";
    std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    const std::size_t preamble = 10;
    std::size_t total = preamble + dict.size() + 1;
    total = (total + 63) / 64 * 64;
    dict.append(total - preamble - dict.size() - 1, ' ');
    dict += '\n';
    std::string out(npy_magic);
    out += char(1);
    out += char(0);
    out += char(dict.size() & 0xff);
    out += char((dict.size() >> 8) & 0xff);
    return out + dict;
}

}  // namespace

std::string detail::npy_header(const TensorView& t) { return npy_preamble("<f4", t.shape); }

void detail::for_each_npy_row(const TensorView& t, const std::function<void(std::string_view)>& row) {
    // Every view's rows are contiguous (attn/tensor.hpp), and rows that follow one another in
    // memory (no row padding) are handed on as one span: a big unpadded result goes to the
    // file in one write, straight from its buffer.
    static_assert(std::endian::native == std::endian::little, "npy output is written as '<f4'");
    const char* span = nullptr;
    std::size_t length = 0;
    for (std::size_t s = 0; s < t.slices(); ++s) {
        const MatrixView m = t.slice(s);
        for (std::size_t r = 0; r < m.rows; ++r) {
            const char* bytes = reinterpret_cast<const char*>(m.row(r));
            if (span && bytes != span + length) {
                row(std::string_view(span, length));
                span = nullptr;
            }
            if (!span) span = bytes, length = 0;
            length += m.cols * sizeof(float);
        }
    }
    if (span) row(std::string_view(span, length));
}

std::string npy_half_bytes(const TensorView& t) {
    std::string out = npy_preamble("<f2", t.shape);
    const std::size_t slices = t.slices(), rows = t.rows(), cols = t.cols();
    reserve_checked(out, out.size() + slices * rows * cols * 2);
    for (std::size_t s = 0; s < slices; ++s) {
        const MatrixView m = t.slice(s);
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c) {
                const std::uint16_t bits = float_to_half(m(r, c));
                out += char(bits & 0xff);
                out += char(bits >> 8);
            }
    }
    return out;
}

std::string npy_bytes(const TensorView& t) {
    std::string out = detail::npy_header(t);
    reserve_checked(out, out.size() + t.slices() * t.rows() * t.cols() * sizeof(float));
    detail::for_each_npy_row(t, [&](std::string_view row) { out += row; });
    return out;
}

std::string npy_bytes(const Matrix& m) { return npy_bytes(view_of(m)); }

}  // namespace attn::io
