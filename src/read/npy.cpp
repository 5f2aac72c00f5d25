// .npy files (NumPy's format, versions 1.0/2.0/3.0): a strict reader of any shape (C or
// Fortran order) that validates the header completely before allocating anything, and a
// writer for float32 C-order data.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/half.hpp"
#include "attn/io.hpp"
#include "kernels/float16.hpp"
#include "read/header_cursor.hpp"
#include "read/npy_in_place.hpp"
#include "tensor/finite_scan.hpp"
#include "runtime/parallel.hpp"

namespace attn::io {

namespace {

constexpr std::size_t max_header_bytes = 65536;  // numpy itself writes a few hundred at most

enum class Kind { f, i, u, b };

struct DType {
    Kind kind;
    std::size_t size;   // bytes per element
    bool big_endian;
};

struct Header {
    std::optional<DType> dtype;
    std::optional<bool> fortran_order;
    std::optional<std::vector<std::size_t>> shape;
};

std::string shape_text(const std::vector<std::size_t>& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser : detail::HeaderCursor {
public:
    HeaderParser(std::string_view text, const std::string& source) : HeaderCursor(text, source) {}

    Header parse() {
        Header h;
        skip();
        expect('{');
        for (;;) {
            skip();
            if (peek() == '}') break;
            const std::string key = string_literal();
            skip();
            expect(':');
            skip();
            if (key == "descr") {
                if (h.dtype) fail("duplicate key 'descr' in header");
                if (peek() == '[') fail("structured dtypes are not supported");
                h.dtype = dtype(string_literal());
            } else if (key == "fortran_order") {
                if (h.fortran_order) fail("duplicate key 'fortran_order' in header");
                h.fortran_order = boolean();
            } else if (key == "shape") {
                if (h.shape) fail("duplicate key 'shape' in header");
                h.shape = tuple();
            } else {
                fail("unexpected key '" + detail::printable(key) + "' in header");
            }
            skip();
            if (peek() == ',') {
                ++i_;
                continue;
            }
            if (peek() != '}') fail("malformed header: expected ',' or '}'");
        }
        ++i_;
        skip();
        if (i_ != s_.size()) fail("malformed header: unexpected text after '}'");
        if (!h.dtype) fail("header lacks the key 'descr'");
        if (!h.fortran_order) fail("header lacks the key 'fortran_order'");
        if (!h.shape) fail("header lacks the key 'shape'");
        return h;
    }

private:
    std::string string_literal() {
        const char q = peek();
        if (q != '\'' && q != '"') fail("malformed header: expected a quoted string");
        const std::size_t close = s_.find(q, i_ + 1);
        if (close == std::string_view::npos) fail("malformed header: unterminated string");
        std::string out(s_.substr(i_ + 1, close - i_ - 1));
        if (out.find('\\') != std::string::npos) fail("malformed header: escapes in strings are not supported");
        i_ = close + 1;
        return out;
    }
    bool boolean() {
        if (s_.substr(i_, 4) == "True") return i_ += 4, true;
        if (s_.substr(i_, 5) == "False") return i_ += 5, false;
        fail("malformed header: fortran_order must be True or False");
    }
    std::vector<std::size_t> tuple() {
        expect('(');
        std::vector<std::size_t> dims;
        for (;;) {
            skip();
            if (peek() == ')') break;
            if (peek() < '0' || peek() > '9') fail("malformed header: shape must be a tuple of integers");
            std::size_t v = 0;
            while (peek() >= '0' && peek() <= '9') {
                if (__builtin_mul_overflow(v, std::size_t(10), &v) ||
                    __builtin_add_overflow(v, std::size_t(peek() - '0'), &v))
                    fail("shape too large");
                ++i_;
            }
            if (peek() == 'L') ++i_;  // Python 2 long literal
            if (dims.size() == max_rank) fail("shape has more than " + std::to_string(max_rank) + " dimensions");
            dims.push_back(v);
            skip();
            if (peek() == ',') {
                ++i_;
                continue;
            }
            if (peek() != ')') fail("malformed header: expected ',' or ')' in shape");
        }
        ++i_;
        return dims;
    }
    DType dtype(const std::string& descr) {
        const std::string shown = "unsupported dtype '" + detail::printable(descr) + "'";
        if (descr.find('O') != std::string::npos) fail("object arrays are not supported (dtype '" + detail::printable(descr) + "')");
        if (descr.size() < 3) fail(shown);
        const char order = descr[0];
        if (order != '<' && order != '>' && order != '|' && order != '=') fail(shown);
        DType t{};
        switch (descr[1]) {
            case 'f': t.kind = Kind::f; break;
            case 'i': t.kind = Kind::i; break;
            case 'u': t.kind = Kind::u; break;
            case 'b': t.kind = Kind::b; break;
            default: fail(shown);
        }
        const std::string size = descr.substr(2);
        if (size == "1") t.size = 1;
        else if (size == "2") t.size = 2;
        else if (size == "4") t.size = 4;
        else if (size == "8") t.size = 8;
        else fail(shown);
        const bool ok = t.kind == Kind::f ? t.size >= 2 : t.kind == Kind::b ? t.size == 1 : true;
        if (!ok) fail(shown);
        if (order == '|' && t.size != 1) fail(shown + ": '|' byte order needs a one-byte type");
        t.big_endian = order == '>' || (order == '=' && std::endian::native == std::endian::big);
        return t;
    }
};

std::uint64_t load_unsigned(const unsigned char* p, std::size_t size, bool big_endian) {
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < size; ++k) v |= std::uint64_t(p[big_endian ? size - 1 - k : k]) << (8 * k);
    return v;
}

// One element converted to float; *out_of_range set when a finite value exceeds float32.
float load_element(const unsigned char* p, const DType& t, bool* out_of_range) {
    const std::uint64_t bits = load_unsigned(p, t.size, t.big_endian);
    switch (t.kind) {
        case Kind::f:
            if (t.size == 2) return kernels::half_to_float(std::uint16_t(bits));
            if (t.size == 4) return std::bit_cast<float>(std::uint32_t(bits));
            {
                const double d = std::bit_cast<double>(bits);
                const float f = float(d);
                *out_of_range = std::isfinite(d) && !std::isfinite(f);
                return f;
            }
        case Kind::i: {
            const unsigned shift = unsigned(64 - 8 * t.size);
            const std::int64_t v = std::int64_t(bits << shift) >> shift;  // sign-extend
            return float(v);
        }
        case Kind::u: return float(bits);
        case Kind::b: return bits ? 1.0f : 0.0f;
    }
    return 0.0f;
}

}  // namespace

namespace {

// A validated .npy: its header, and where its data starts (the size already proven by the
// bytes present, so a caller may allocate).
struct Layout {
    Header header;
    std::size_t data_offset = 0;
};

// head: the file's first bytes, at least its whole header (or all of the file); total: the
// file's size.
Layout npy_layout(std::string_view head, std::size_t total, const std::string& source, std::size_t max_dims) {
    auto fail = [&](const std::string& m) -> void { throw InputError(source + ": " + m); };
    if (head.size() < 8 || head.substr(0, 6) != npy_magic) fail("not a .npy file (bad magic)");
    const int major = static_cast<unsigned char>(head[6]), minor = static_cast<unsigned char>(head[7]);
    if (major < 1 || major > 3 || minor != 0)
        fail("unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor));
    const std::size_t length_bytes = major == 1 ? 2 : 4;
    const std::size_t preamble = 8 + length_bytes;
    if (head.size() < preamble) fail("truncated .npy header");
    const std::size_t header_len =
        std::size_t(load_unsigned(reinterpret_cast<const unsigned char*>(head.data()) + 8, length_bytes, false));
    if (header_len > max_header_bytes)
        fail("header length " + std::to_string(header_len) + " exceeds the limit of " +
             std::to_string(max_header_bytes) + " bytes");
    if (head.size() - preamble < header_len) fail("truncated .npy header");
    const Header h = HeaderParser(head.substr(preamble, header_len), source).parse();

    const std::vector<std::size_t>& dims = *h.shape;
    if (dims.empty()) fail("0-d array (a single number): expected a vector (n,) or a matrix (r, c)");
    if (dims.size() > max_dims)
        fail("shape " + shape_text(dims) + " has " + std::to_string(dims.size()) + " dimensions: at most " +
             std::to_string(max_dims) + " are supported here");
    for (std::size_t d : dims)
        if (d == 0) fail("empty array: shape " + shape_text(dims));
    std::size_t count = 1, data_bytes = 0;
    for (std::size_t d : dims)
        if (__builtin_mul_overflow(count, d, &count)) fail("shape " + shape_text(dims) + " is too large");
    if (__builtin_mul_overflow(count, h.dtype->size, &data_bytes)) fail("shape " + shape_text(dims) + " is too large");
    const std::size_t available = total - preamble - header_len;
    if (available < data_bytes)
        fail("truncated data: shape " + shape_text(dims) + " needs " + std::to_string(data_bytes) +
             " bytes, the file has " + std::to_string(available));
    if (available > data_bytes)
        fail(std::to_string(available - data_bytes) + " unexpected bytes after the array data");
    return {h, preamble + header_len};
}

}  // namespace

namespace {

// The same over a whole mapped input of `type`: slices of 256 KiB scanned by all threads (a
// 32 MiB K/V cache is otherwise a serial pass before the kernels start). Small enough that
// the 1 MiB inputs of a T=4096, d=64 `attend` are shared too: that run was then 8-9% faster
// as a whole (medians of 40 alternating runs, 2 threads), far more than the 0.1 ms the scans
// gave up: the kernel is then not the worker's first job (as with the warm-up job measured
// for start_threads in attn/ops.hpp).
bool any_nonfinite_of(const void* bytes, std::size_t count, ElementType type) {
    const std::size_t size = element_size(type), per_slice = (std::size_t(1) << 18) / size;
    const auto scan = [&](std::size_t begin, std::size_t n) {
        const void* at = static_cast<const char*>(bytes) + begin * size;
        return type == ElementType::f32 ? any_nonfinite_f32(at, n) : any_nonfinite_f16(at, n);
    };
    const std::size_t slices = (count + per_slice - 1) / per_slice;
    if (slices <= 1) return scan(0, count);
    std::vector<char> found(slices, 0);
    parallel_for(slices, [&](std::size_t k) { found[k] = scan(k * per_slice, std::min(per_slice, count - k * per_slice)); });
    return std::find(found.begin(), found.end(), char(1)) != found.end();
}

}  // namespace

std::optional<detail::NpyInPlace> detail::npy_in_place(std::string_view bytes, const std::string& source,
                                                       std::size_t max_dims, ElementType type) {
    const Layout layout = npy_layout(bytes, bytes.size(), source, max_dims);
    const Header& h = layout.header;
    const std::vector<std::size_t>& dims = *h.shape;
    const std::size_t size = element_size(type), line = 64 / size;  // elements per 64-byte line
    const auto address = reinterpret_cast<std::uintptr_t>(bytes.data()) + layout.data_offset;
    if (h.dtype->kind != Kind::f || h.dtype->size != size || h.dtype->big_endian ||
        (*h.fortran_order && dims.size() > 1) || std::endian::native != std::endian::little || padded_row_length(dims.back(), line) != dims.back() ||
        address % Matrix::alignment != 0)
        return std::nullopt;
    // A non-finite value: the copying readers report it, or allow -inf.
    const std::size_t count = Shape(dims).numel();
    const void* data = reinterpret_cast<const void*>(address);
    const bool nonfinite = any_nonfinite_of(data, count, type);
    if (nonfinite) return std::nullopt;
    return NpyInPlace{Shape(dims), layout.data_offset};
}

Shape npy_shape(std::string_view head, std::size_t total_size, const std::string& source, std::size_t max_dims) {
    return Shape(*npy_layout(head, total_size, source, max_dims).header.shape);
}

std::size_t npy_header_size(std::string_view head) noexcept {
    if (head.size() < 8 || head.substr(0, 6) != npy_magic || head[6] < 1 || head[6] > 3) return 0;
    const std::size_t length_bytes = head[6] == 1 ? 2 : 4;
    if (head.size() < 8 + length_bytes) return 0;
    const std::size_t header_len =
        std::size_t(load_unsigned(reinterpret_cast<const unsigned char*>(head.data()) + 8, length_bytes, false));
    return header_len > max_header_bytes ? 0 : 8 + length_bytes + header_len;
}

std::optional<Shape> npy_declared_shape(std::string_view bytes) noexcept {
    try {
        if (bytes.size() < 8 || bytes.substr(0, 6) != npy_magic) return std::nullopt;
        const std::size_t length_bytes = bytes[6] == 1 ? 2 : 4, preamble = 8 + length_bytes;
        if (bytes.size() < preamble) return std::nullopt;
        const std::size_t header_len =
            std::size_t(load_unsigned(reinterpret_cast<const unsigned char*>(bytes.data()) + 8, length_bytes, false));
        if (header_len > max_header_bytes || bytes.size() - preamble < header_len) return std::nullopt;
        return Shape(*HeaderParser(bytes.substr(preamble, header_len), "").parse().shape);
    } catch (...) {  // InputError (a header attn does not parse, or beyond max_rank), bad_alloc
        return std::nullopt;
    }
}

std::optional<MaskBits> parse_npy_mask(std::string_view bytes, const std::string& source, std::size_t max_dims,
                                      bool zero_allows, bool* negative, bool* boolean, bool mapped) {
    const Layout layout = npy_layout(bytes, bytes.size(), source, max_dims);
    const Header& h = layout.header;
    const bool one_byte = h.dtype->size == 1 && (h.dtype->kind == Kind::b || h.dtype->kind == Kind::u ||
                                                 h.dtype->kind == Kind::i);
    if (!one_byte || (*h.fortran_order && h.shape->size() > 1)) return std::nullopt;
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data()) + layout.data_offset;
    const Shape shape(*h.shape);
    if (boolean) *boolean = h.dtype->kind == Kind::b;
    if (negative && h.dtype->kind == Kind::i)
        *negative = std::any_of(data, data + shape.numel(), [](unsigned char c) { return c >= 0x80; });
    // The pages of a mapped file, once packed, are given back (their whole pages within the
    // range): the Tq×Tk bytes never stand in memory at once beside the bits.
    const auto drop = [data](std::size_t begin, std::size_t end) {
        const std::uintptr_t page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
        const std::uintptr_t from = (std::uintptr_t(data + begin) + page - 1) / page * page;
        const std::uintptr_t to = std::uintptr_t(data + end) / page * page;
        if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);  // advice: failure harmless
    };
    return MaskBits(shape, data, zero_allows, mapped ? drop : std::function<void(std::size_t, std::size_t)>{});
}

Tensor parse_npy_tensor(std::string_view bytes, const std::string& source, Finite finite, std::size_t max_dims) {
    auto fail = [&](const std::string& m) -> void { throw InputError(source + ": " + m); };
    const Layout layout = npy_layout(bytes, bytes.size(), source, max_dims);
    const Header& h = layout.header;
    const std::vector<std::size_t>& dims = *h.shape;

    // Only now, with the size proven by the bytes present, allocate; every element is written.
    const Shape shape(dims);
    Tensor t(shape, Tensor::Uninitialized{});
    const std::size_t count = shape.numel();
    const TensorView dst = t.view();
    const std::size_t rank = dims.size();
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data()) + layout.data_offset;
    // The common case, little-endian float32 in C order: whole rows copied at once, then
    // checked for non-finite values (the general loop below finds and reports the first one).
    const bool fortran = *h.fortran_order;
    if (h.dtype->kind == Kind::f && h.dtype->size == 4 && !h.dtype->big_endian && (!fortran || rank == 1) &&
        std::endian::native == std::endian::little) {
        const std::size_t cols = dims[rank - 1], rows_all = count / cols;
        const unsigned char* src = data;
        bool all_finite = true;
        for (std::size_t r = 0; r < rows_all; ++r) {
            float* row = t.data() + r * t.row_stride();
            std::memcpy(row, src + r * cols * 4, cols * 4);
            all_finite &= !any_nonfinite_f32(row, cols);
        }
        if (all_finite) return t;
    }
    // The file's elements come in C order (last index fastest) or Fortran order (first index
    // fastest); an odometer over the index in that order tracks the element's place in t.
    std::array<std::size_t, max_rank> index{};
    std::size_t offset = 0;  // of `index` in t
    float* out = t.data();
    for (std::size_t k = 0; k < count; ++k) {
        bool out_of_range = false;
        const float v = load_element(data + k * h.dtype->size, *h.dtype, &out_of_range);
        auto at = [&] {
            if (rank <= 2)
                return "row " + std::to_string(rank == 2 ? index[0] + 1 : 1) + ", column " +
                       std::to_string(index[rank - 1] + 1);
            std::string s = "element [";
            for (std::size_t i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(index[i]);
            return s + "]";
        };
        if (out_of_range) fail(at() + ": value is out of float32 range");
        if (!finite_allows(finite, v)) {
            const char* name = std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
            fail(at() + ": non-finite value '" + name + "' is not allowed here" +
                 (finite == Finite::allow_neg_inf ? " (only -inf is)" : ""));
        }
        out[offset] = v;
        for (std::size_t step = 0; step < rank; ++step) {
            const std::size_t i = fortran ? step : rank - 1 - step;
            if (++index[i] < dims[i]) {
                offset += dst.strides[i];
                break;
            }
            offset -= (dims[i] - 1) * dst.strides[i];
            index[i] = 0;
        }
    }
    return t;
}

KVInput parse_kv_tensor(std::string_view bytes, const std::string& source, std::size_t max_dims) {
    KVInput kv;
    const bool npy = !bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x93;
    if (npy && std::endian::native == std::endian::little) {
        const Layout layout = npy_layout(bytes, bytes.size(), source, max_dims);
        const Header& h = layout.header;
        const std::vector<std::size_t>& dims = *h.shape;
        const std::size_t rank = dims.size();
        if (h.dtype->kind == Kind::f && h.dtype->size == 2 && !h.dtype->big_endian &&
            (!*h.fortran_order || rank == 1)) {
            HalfTensor t{Shape(dims)};
            const std::size_t cols = dims[rank - 1], rows_all = Shape(dims).numel() / cols;
            const char* src = bytes.data() + layout.data_offset;
            bool nonfinite = false;
            for (std::size_t r = 0; r < rows_all; ++r) {
                std::uint16_t* row = t.data() + r * t.row_stride();
                std::memcpy(row, src + r * cols * 2, cols * 2);
                nonfinite |= any_nonfinite_f16(row, cols);
            }
            if (!nonfinite) {
                kv.f16 = std::move(t);
                return kv;
            }
            // The float32 reader finds and reports the first non-finite value.
        }
    }
    kv.f32 = parse_tensor(bytes, source, Finite::required, max_dims);
    return kv;
}


}  // namespace attn::io
