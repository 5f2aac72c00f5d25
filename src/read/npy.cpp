// .npy files (NumPy's format, versions 1.0/2.0/3.0): a strict reader of any shape (C or
// Fortran order) that validates the header completely before allocating anything, and a
// writer for float32 C-order data.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/half.hpp"
#include "attn/io.hpp"
#include "kernels/float16.hpp"
#include "read/model/elements.hpp"
#include "read/header_cursor.hpp"
#include "read/input_bytes.hpp"
#include "read/npy_in_place.hpp"
#include "tensor/finite_scan.hpp"
#include "runtime/parallel.hpp"

namespace attn::io {

namespace {

constexpr std::size_t max_npy_header_bytes = 65536;  // numpy itself writes a few hundred at most

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
class NpyHeaderParser : detail::HeaderCursor {
public:
    NpyHeaderParser(std::string_view text, const std::string& source) : HeaderCursor(text, source) {}

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

// n elements of type T at src (unaligned, native byte order), each as convert(x,
// out_of_range) gives it, into out, in runs of 64 copied to an array first. Whether one was
// out of range.
template <class T, class Convert>
bool convert_run(const unsigned char* src, std::size_t n, float* out, Convert convert) {
    std::uint32_t out_of_range = 0;
    T run[64];
    for (std::size_t i = 0; i < n; i += 64) {
        const std::size_t m = std::min<std::size_t>(64, n - i);
        std::memcpy(run, src + i * sizeof(T), m * sizeof(T));
        if (m == 64)
            for (std::size_t k = 0; k < 64; ++k) out[i + k] = convert(run[k], out_of_range);
        else
            for (std::size_t k = 0; k < m; ++k) out[i + k] = convert(run[k], out_of_range);
    }
    return out_of_range != 0;
}

// Calls f with a converter of dtype t's elements, convert(src, n, out) -> bool: n elements
// at src into out as load_element gives them, and whether one was beyond float32. Typed
// loops for the little-endian floats that masks and biases come in, load_element for the rest.
template <class F>
void with_converter(const DType& t, F&& f) {
    const bool native = !t.big_endian && std::endian::native == std::endian::little;
    if (native && t.kind == Kind::f && t.size == 4)
        return f([](const unsigned char* src, std::size_t n, float* out) {
            std::memcpy(out, src, n * 4);
            return false;
        });
    if (native && t.kind == Kind::f && t.size == 8)
        return f([](const unsigned char* src, std::size_t n, float* out) {
            return convert_run<std::uint64_t>(src, n, out, [](std::uint64_t d, std::uint32_t& out_of_range) {
                const float v = float(std::bit_cast<double>(d));
                // finite in float64, not in float32 (as bits)
                constexpr std::uint64_t d_inf = 0x7ff0000000000000u;
                constexpr std::uint32_t f_inf = 0x7f800000u;
                const bool finite_d = (d & d_inf) != d_inf, infinite_f = (std::bit_cast<std::uint32_t>(v) & f_inf) == f_inf;
                out_of_range |= std::uint32_t(finite_d & infinite_f);
                return v;
            });
        });
    if (native && t.kind == Kind::f && t.size == 2)
        return f([](const unsigned char* src, std::size_t n, float* out) {
            return convert_run<std::uint16_t>(src, n, out,
                                              [](std::uint16_t h, std::uint32_t&) { return kernels::half_to_float(h); });
        });
    return f([t](const unsigned char* src, std::size_t n, float* out) {
        bool out_of_range = false;
        for (std::size_t i = 0; i < n; ++i) {
            bool o = false;
            out[i] = load_element(src + i * t.size, t, &o);
            out_of_range |= o;
        }
        return out_of_range;
    });
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
    if (header_len > max_npy_header_bytes)
        fail("header length " + std::to_string(header_len) + " exceeds the limit of " +
             std::to_string(max_npy_header_bytes) + " bytes");
    if (head.size() - preamble < header_len) fail("truncated .npy header");
    const Header h = NpyHeaderParser(head.substr(preamble, header_len), source).parse();

    const std::vector<std::size_t>& dims = *h.shape;
    if (dims.empty()) fail("0-d array (a single number): expected at least one dimension");
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

// Whether a whole mapped input of `type` holds a value `finite` refuses (float16: any
// non-finite value): slices of 256 KiB scanned by all threads (a
// 32 MiB K/V cache is otherwise a serial pass before the kernels start). Small enough that
// the 1 MiB inputs of a T=4096, d=64 `attend` are shared too: that run was then 8-9% faster
// as a whole (medians of 40 alternating runs, 2 threads), far more than the 0.1 ms the scans
// gave up: the kernel is then not the worker's first job (as with the warm-up job measured
// for start_threads in attn/ops.hpp).
bool any_refused_of(const void* bytes, std::size_t count, ElementType type, Finite finite) {
    const std::size_t size = element_size(type), per_slice = (std::size_t(1) << 18) / size;
    const auto scan = [&](std::size_t begin, std::size_t n) {
        const void* at = static_cast<const char*>(bytes) + begin * size;
        if (type == ElementType::f16) return any_nonfinite_f16(at, n);
        return finite == Finite::allow_neg_inf ? any_nan_or_pos_inf_f32(at, n) : any_nonfinite_f32(at, n);
    };
    if (finite >= Finite::any) return false;
    const std::size_t slices = (count + per_slice - 1) / per_slice;
    if (slices <= 1) return scan(0, count);
    std::vector<char> found(slices, 0);
    parallel_for(slices, [&](std::size_t k) { found[k] = scan(k * per_slice, std::min(per_slice, count - k * per_slice)); });
    return std::find(found.begin(), found.end(), char(1)) != found.end();
}

}  // namespace

std::optional<detail::NpyInPlace> detail::npy_in_place(std::string_view bytes, const std::string& source,
                                                       std::size_t max_dims, ElementType type, Finite finite) {
    const Layout layout = npy_layout(bytes, bytes.size(), source, max_dims);
    const Header& h = layout.header;
    const std::vector<std::size_t>& dims = *h.shape;
    const std::size_t size = element_size(type), line = 64 / size;  // elements per 64-byte line
    const auto address = reinterpret_cast<std::uintptr_t>(bytes.data()) + layout.data_offset;
    if (h.dtype->kind != Kind::f || h.dtype->size != size || h.dtype->big_endian ||
        (*h.fortran_order && dims.size() > 1) || std::endian::native != std::endian::little || padded_row_length(dims.back(), line) != dims.back() ||
        address % Matrix::alignment != 0)
        return std::nullopt;
    // A value `finite` refuses: the copying readers report it.
    const std::size_t count = Shape(dims).numel();
    const void* data = reinterpret_cast<const void*>(address);
    if (any_refused_of(data, count, type, finite)) return std::nullopt;
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
    return header_len > max_npy_header_bytes ? 0 : 8 + length_bytes + header_len;
}

std::optional<Shape> npy_declared_shape(std::string_view bytes) noexcept {
    try {
        if (bytes.size() < 8 || bytes.substr(0, 6) != npy_magic) return std::nullopt;
        const std::size_t length_bytes = bytes[6] == 1 ? 2 : 4, preamble = 8 + length_bytes;
        if (bytes.size() < preamble) return std::nullopt;
        const std::size_t header_len =
            std::size_t(load_unsigned(reinterpret_cast<const unsigned char*>(bytes.data()) + 8, length_bytes, false));
        if (header_len > max_npy_header_bytes || bytes.size() - preamble < header_len) return std::nullopt;
        return Shape(*NpyHeaderParser(bytes.substr(preamble, header_len), "").parse().shape);
    } catch (...) {  // InputError (a header attn does not parse, or beyond max_rank), bad_alloc
        return std::nullopt;
    }
}

namespace {

// Rows of input per block packed or converted by one thread: about 1 MiB of the file, so that
// two threads hold a few MiB of a mapped file's pages at a time before they are dropped.
std::size_t rows_per_block(std::size_t row_bytes) { return std::max<std::size_t>(1, (std::size_t(1) << 20) / row_bytes); }

// What packing a mask of numbers found, over all its entries.
struct MaskScan {
    bool refused = false;     // a value the rules refuse (non-finite, beyond float32)
    bool negative = false;    // a negative value
    bool not_binary = false;  // a value neither 0 nor -inf (an additive mask's bias)
};

// Rows [r0, r1) of Tk elements at `data` (`size` bytes each, converted by `convert`) into
// bits, each entry taken as the float32 value the tensor reader would give it. 64 entries at
// a time, their float32 bits classified in integer operations over a fixed count that the
// compiler vectorises (one entry at a time was 60% of a whole `attend` with a float32 mask).
template <class Convert>
MaskScan pack_rows(const unsigned char* data, std::size_t size, std::size_t Tk, std::size_t r0, std::size_t r1,
                   std::uint64_t* words, const MaskRules& rules, Convert convert) {
    constexpr std::size_t word_bits = MaskBits::word_bits;
    constexpr std::uint32_t neg_inf = 0xff800000u, inf = 0x7f800000u;
    const std::uint32_t neg_inf_allowed = rules.additive;
    const std::size_t n = MaskBits::words_per_row(Tk);
    bool out_of_range = false;
    std::uint32_t refused = 0, negative = 0, not_binary = 0;
    float v[word_bits];
    std::uint8_t nonzero[word_bits];
    for (std::size_t r = r0; r < r1; ++r) {
        const unsigned char* row = data + r * Tk * size;
        std::uint64_t* out = words + (r - r0) * n;
        for (std::size_t w = 0; w < n; ++w) {
            const std::size_t j0 = w * word_bits, count = std::min(word_bits, Tk - j0);
            out_of_range |= convert(row + j0 * size, count, v);
            std::fill(v + count, v + word_bits, 0.0f);  // zeros: no bit, no flag
            for (std::size_t j = 0; j < word_bits; ++j) {
                const std::uint32_t u = std::bit_cast<std::uint32_t>(v[j]), a = u & 0x7fffffffu;  // a: |v|
                const std::uint32_t is_nonzero = a != 0, is_neg_inf = u == neg_inf;
                nonzero[j] = std::uint8_t(is_nonzero);
                refused |= std::uint32_t(a >= inf) & ~(neg_inf_allowed & is_neg_inf);  // inf, NaN
                negative |= (u >> 31) & is_nonzero;
                not_binary |= is_nonzero & ~is_neg_inf;
            }
            const std::uint64_t word = pack_byte_word(nonzero, word_bits);
            const std::uint64_t valid = count == word_bits ? ~std::uint64_t(0) : (std::uint64_t(1) << count) - 1;
            out[w] = rules.zero_allows ? ~word & valid : word;
        }
    }
    return {out_of_range || (refused & 1) != 0, (negative & 1) != 0, (not_binary & 1) != 0};
}

}  // namespace

std::optional<MaskBits> parse_npy_mask(std::string_view bytes, const std::string& source, std::size_t max_dims,
                                       const MaskRules& rules, bool* negative, bool* boolean, bool mapped) {
    const Layout layout = npy_layout(bytes, bytes.size(), source, max_dims);
    const Header& h = layout.header;
    // Booleans and integers of any size are a boolean mask (nonzero true): PyTorch takes bool
    // masks and refuses integer ones, never adding them. Said before any return: the caller's
    // fallback (Fortran order, read as values) applies the same rule.
    const bool integer = h.dtype->kind == Kind::b || h.dtype->kind == Kind::i || h.dtype->kind == Kind::u;
    if (boolean) *boolean = integer;
    if (*h.fortran_order && h.shape->size() > 1) return std::nullopt;
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data()) + layout.data_offset;
    const Shape shape(*h.shape);
    const std::size_t Tk = shape.back(1), size = h.dtype->size;
    // The pages of a mapped file, once packed, are given back: the Tq×Tk entries never stand
    // in memory at once beside the bits.
    const std::size_t data_bytes = shape.numel() * size;
    const auto drop = [&](std::size_t begin, std::size_t end) {  // bytes from `data`
        if (mapped) detail::drop_read_block(reinterpret_cast<const char*>(data), data_bytes, begin, end);
    };
    if (size == 1) {  // bool, uint8, int8: booleans, nonzero true
        if (negative && h.dtype->kind == Kind::i)
            *negative = std::any_of(data, data + shape.numel(), [](unsigned char c) { return c >= 0x80; });
        return MaskBits(shape, data, rules.zero_allows, drop);
    }
    const std::size_t per_block = rows_per_block(Tk * size);
    std::vector<MaskScan> scans((shape.numel() / Tk + per_block - 1) / per_block);
    MaskBits bits;
    with_converter(*h.dtype, [&](auto convert) {
        bits = MaskBits(shape, per_block, [&](std::size_t r0, std::size_t r1, std::uint64_t* words) {
            scans[r0 / per_block] = pack_rows(data, size, Tk, r0, r1, words, rules, convert);
            drop(r0 * Tk * size, r1 * Tk * size);
        });
    });
    MaskScan all;
    for (const MaskScan& k : scans)
        all.refused |= k.refused, all.negative |= k.negative, all.not_binary |= k.not_binary;
    if (all.refused || (rules.additive && all.not_binary && !integer)) return std::nullopt;
    if (negative) *negative = all.negative;
    return bits;
}

std::optional<MaskBits> detail::read_npy_byte_mask(const std::string& path, const std::string& source,
                                                   std::size_t max_dims, const MaskRules& rules, bool* negative,
                                                   bool* boolean) {
    const auto file = PositionalFile::open(path);
    if (!file) return std::nullopt;
    std::string head(std::min<std::size_t>(file->size(), 4096), '\0');
    try {
        file->read(0, head.size(), head.data());
        if (const std::size_t whole = npy_header_size(head); whole > head.size() && whole <= file->size()) {
            head.resize(whole);
            file->read(0, whole, head.data());
        }
    } catch (const InputError&) {
        return std::nullopt;  // a file holding less than its size says (sysfs): the reader that follows names it
    }
    if (static_cast<unsigned char>(head[0]) != 0x93) return std::nullopt;  // text: the text reader's
    const Layout layout = npy_layout(head, file->size(), source, max_dims);  // parse_npy_mask's errors
    const Header& h = layout.header;
    if (h.dtype->size != 1 || (*h.fortran_order && h.shape->size() > 1)) return std::nullopt;
    const Shape shape(*h.shape);
    const std::size_t Tk = shape.back(1);
    constexpr std::size_t block_bytes = std::size_t(2) << 20;
    if (Tk > block_bytes) return std::nullopt;  // rows longer than a block: mapped, as before
    // As parse_npy_mask: booleans and integers are a boolean mask (nonzero true).
    if (boolean) *boolean = h.dtype->kind == Kind::b || h.dtype->kind == Kind::i || h.dtype->kind == Kind::u;
    const bool signed_bytes = h.dtype->kind == Kind::i;
    // Blocks of up to 2 MiB of bytes, each read into a buffer of 2 MiB: one huge page
    // (kernels/aligned_memory.cpp), faulted in once by each thread; freed and allocated again
    // at the same size, it is the same memory for the thread's next blocks.
    const std::size_t per_block = std::max<std::size_t>(1, block_bytes / Tk);
    std::vector<char> negatives((shape.numel() / Tk + per_block - 1) / per_block, 0);
    MaskBits bits(shape, per_block, [&](std::size_t r0, std::size_t r1, std::uint64_t* words) {
        const std::size_t n = (r1 - r0) * Tk;
        const std::unique_ptr<void, void (*)(void*)> buffer(aligned_alloc_bytes(block_bytes), aligned_free_bytes);
        unsigned char* bytes = static_cast<unsigned char*>(buffer.get());
        file->read(layout.data_offset + r0 * Tk, n, bytes);
        if (signed_bytes && negative)
            negatives[r0 / per_block] = std::any_of(bytes, bytes + n, [](unsigned char c) { return c >= 0x80; });
        pack_byte_rows(bytes, r1 - r0, Tk, rules.zero_allows, words);
    });
    if (negative && signed_bytes)
        *negative = std::any_of(negatives.begin(), negatives.end(), [](char c) { return c != 0; });
    return bits;
}

Tensor parse_npy_tensor(std::string_view bytes, const std::string& source, Finite finite, std::size_t max_dims) {
    return detail::parse_npy_tensor(bytes, source, finite, max_dims, false);
}

Tensor detail::parse_npy_tensor(std::string_view bytes, const std::string& source, Finite finite,
                                std::size_t max_dims, bool mapped) {
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
    // C order (or a vector), the common case: blocks of rows converted by all threads (float32
    // copied as it is), each row then scanned for what `finite` refuses; the general loop
    // below finds and reports the first such value, or one beyond float32.
    const bool fortran = *h.fortran_order;
    if (!fortran || rank == 1) {
        const std::size_t cols = dims[rank - 1], rows_all = count / cols, size = h.dtype->size;
        const std::size_t per_block = rows_per_block(cols * size);
        std::vector<char> refused((rows_all + per_block - 1) / per_block, 0);
        with_converter(*h.dtype, [&](auto convert) {
            parallel_for(refused.size(), [&](std::size_t block) {
                bool bad = false;
                const std::size_t r0 = block * per_block, r1 = std::min(rows_all, r0 + per_block);
                for (std::size_t r = r0; r < r1; ++r) {
                    float* row = t.data() + r * t.row_stride();
                    bad |= convert(data + r * cols * size, cols, row);  // out of range
                    bad |= finite == Finite::required        ? any_nonfinite_f32(row, cols)
                           : finite == Finite::allow_neg_inf ? any_nan_or_pos_inf_f32(row, cols)
                                                             : false;
                }
                refused[block] = bad;
                if (mapped)  // converted: the file's pages go (read again only for an error's message)
                    detail::drop_read_block(reinterpret_cast<const char*>(data), count * size, r0 * cols * size,
                                            r1 * cols * size);
            });
        });
        if (std::find(refused.begin(), refused.end(), char(1)) == refused.end()) return t;
    }
    // The file's elements come in C order (last index fastest) or Fortran order (first index
    // fastest); an odometer over the index in that order tracks the element's place in t.
    std::array<std::size_t, max_rank> index{};
    std::size_t offset = 0;  // of `index` in t
    float* out = t.data();
    for (std::size_t k = 0; k < count; ++k) {
        bool out_of_range = false;
        const float v = load_element(data + k * h.dtype->size, *h.dtype, &out_of_range);
        auto at = [&] { return element_position(index.data(), rank); };  // (read/model/elements.hpp)
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
