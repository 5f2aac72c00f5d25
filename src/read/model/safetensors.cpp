// safetensors files (huggingface/safetensors): an 8-byte little-endian header length, a JSON
// header {"NAME": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
// "__metadata__": {"key": "text"}}, then the data. The header is validated like an .npy
// header before anything is allocated: size bounded, keys exact, offsets inside the data,
// byte count = shape product × dtype size, no two tensors overlapping.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "attn/error.hpp"
#include "attn/model_file.hpp"
#include "read/input_bytes.hpp"
#include "read/content_hint.hpp"
#include "read/header_cursor.hpp"
#include "read/model/elements.hpp"
#include "runtime/utf8.hpp"

namespace attn::io {

namespace {

// The reference implementation's own limit on the header.
constexpr std::uint64_t max_json_header_bytes = 100'000'000;

struct Entry {
    TensorInfo info;
    std::size_t dtype_size = 0;
    std::uint64_t begin = 0, end = 0;  // in the data section
};

std::size_t dtype_size(const std::string& d) {
    static const std::map<std::string, std::size_t, std::less<>> sizes = {
        {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"I16", 2},  {"U16", 2},
        {"F16", 2},  {"BF16", 2}, {"I32", 4}, {"U32", 4},     {"F32", 4},     {"F64", 8}, {"I64", 8}, {"U64", 8}};
    const auto it = sizes.find(d);
    return it == sizes.end() ? 0 : it->second;
}

// Just enough JSON for the header: objects, arrays of integers, strings, and skipping any
// other value inside __metadata__ is refused (the format allows only strings there).
class JsonHeaderParser : detail::HeaderCursor {
public:
    // The header starts after the 8-byte length: positions in messages count from the file start.
    JsonHeaderParser(std::string_view s, const std::string& source) : HeaderCursor(s, source, 8) {}

    std::vector<Entry> parse() {
        std::vector<Entry> entries;
        std::set<std::string> names;
        skip();
        expect('{');
        skip();
        if (peek() == '}') ++i_;
        else
            for (;;) {
                skip();
                const std::string name = string();
                skip();
                expect(':');
                skip();
                if (!names.insert(name).second)
                    fail(name == "__metadata__" ? "__metadata__ appears twice in the header"
                                                : "tensor '" + detail::printable(name, 60) + "' appears twice in the header");
                if (name == "__metadata__") parse_metadata();
                else entries.push_back(entry(name));
                skip();
                if (peek() == ',') {
                    ++i_;
                    continue;
                }
                expect('}');
                break;
            }
        skip();  // the writer pads the header with spaces
        if (i_ != s_.size()) fail("malformed header: unexpected text after the JSON object");
        return entries;
    }

    std::map<std::string, std::string> metadata;

private:
    std::string string() {
        if (peek() != '"') fail("malformed header: expected a string" + at_byte());
        ++i_;
        std::string out;
        for (;;) {
            if (i_ >= s_.size()) fail("malformed header: unterminated string");
            const char c = s_[i_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("malformed header: control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            const char e = peek();
            ++i_;
            switch (e) {
                case '"': case '\\': case '/': out += e; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    // A UTF-16 surrogate pair is one code point; a lone half is not text (the
                    // reference reader refuses it too).
                    char32_t cp = hex4();
                    if (cp >= 0xdc00 && cp < 0xe000) fail("malformed header: a lone surrogate in a \\u escape" + at_byte());
                    if (cp >= 0xd800 && cp < 0xdc00) {
                        const char32_t low = s_.substr(i_, 2) == "\\u" ? (i_ += 2, hex4()) : 0;
                        if (low < 0xdc00 || low >= 0xe000) fail("malformed header: a lone surrogate in a \\u escape" + at_byte());
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                    }
                    append_utf8(out, cp);
                    break;
                }
                default: fail("malformed header: bad escape in a string");
            }
        }
    }

    // The four hex digits of a \u escape.
    char32_t hex4() {
        if (s_.size() - i_ < 4) fail("malformed header: bad \\u escape");
        char32_t cp = 0;
        for (int k = 0; k < 4; ++k) {
            const char h = s_[i_++];
            cp = cp * 16 + char32_t(h >= '0' && h <= '9' ? h - '0'
                                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                           : (fail("malformed header: bad \\u escape"), 0));
        }
        return cp;
    }

    // JSON's integers: no sign, no leading zero (serde_json, the reference reader's parser,
    // refuses "007"), no fraction or exponent (the next character then fails its caller).
    std::uint64_t integer() {
        if (peek() < '0' || peek() > '9') fail("malformed header: expected a non-negative integer" + at_byte());
        if (peek() == '0' && i_ + 1 < s_.size() && s_[i_ + 1] >= '0' && s_[i_ + 1] <= '9')
            fail("malformed header: an integer with a leading zero" + at_byte());
        std::uint64_t v = 0;
        while (peek() >= '0' && peek() <= '9') {
            if (__builtin_mul_overflow(v, std::uint64_t(10), &v) || __builtin_add_overflow(v, std::uint64_t(peek() - '0'), &v))
                fail("malformed header: integer too large");
            ++i_;
        }
        return v;
    }

    std::vector<std::uint64_t> integers(const std::string& what) {
        std::vector<std::uint64_t> out;
        expect('[');
        skip();
        if (peek() == ']') return ++i_, out;
        for (;;) {
            skip();
            if (out.size() == max_rank) fail(what + " has more than " + std::to_string(max_rank) + " entries");
            out.push_back(integer());
            skip();
            if (peek() == ',') {
                ++i_;
                continue;
            }
            expect(']');
            return out;
        }
    }

    void parse_metadata() {
        expect('{');
        skip();
        if (peek() == '}') return void(++i_);
        for (;;) {
            skip();
            std::string key = string();
            skip();
            expect(':');
            skip();
            metadata[std::move(key)] = string();  // the format allows only text values
            skip();
            if (peek() == ',') {
                ++i_;
                continue;
            }
            expect('}');
            return;
        }
    }

    Entry entry(const std::string& name) {
        const std::string shown = "tensor '" + detail::printable(name, 60) + "'";
        Entry e;
        e.info.name = name;
        bool has_dtype = false, has_shape = false, has_offsets = false;
        std::vector<std::uint64_t> shape, offsets;
        expect('{');
        for (;;) {
            skip();
            const std::string key = string();
            skip();
            expect(':');
            skip();
            bool* seen = key == "dtype" ? &has_dtype : key == "shape" ? &has_shape : key == "data_offsets" ? &has_offsets : nullptr;
            if (!seen) fail(shown + ": unexpected key '" + detail::printable(key, 60) + "'");
            if (*seen) fail(shown + ": duplicate key '" + key + "'");
            *seen = true;
            if (key == "dtype") e.info.dtype = string();
            else if (key == "shape") shape = integers(shown + " shape");
            else offsets = integers(shown + " data_offsets");
            skip();
            if (peek() == ',') {
                ++i_;
                continue;
            }
            expect('}');
            break;
        }
        if (!has_dtype) fail(shown + " lacks the key 'dtype'");
        if (!has_shape) fail(shown + " lacks the key 'shape'");
        if (!has_offsets) fail(shown + " lacks the key 'data_offsets'");
        // A dtype this reader does not know (newer ones such as F8_E8M0 or the sub-byte F4) has
        // no size to check the offsets against: the tensor is listed as unreadable and the
        // file's other tensors stay usable.
        e.dtype_size = dtype_size(e.info.dtype);
        if (offsets.size() != 2) fail(shown + ": data_offsets must be [begin, end]");
        e.begin = offsets[0], e.end = offsets[1];
        std::vector<std::size_t> dims(shape.begin(), shape.end());
        e.info.shape = Shape(dims);
        std::uint64_t count = 1, bytes = 0;
        for (std::uint64_t d : shape)
            if (__builtin_mul_overflow(count, d, &count)) fail(shown + " has a shape too large: " + e.info.shape.text());
        if (__builtin_mul_overflow(count, std::uint64_t(e.dtype_size), &bytes))
            fail(shown + " has a shape too large: " + e.info.shape.text());
        if (e.end < e.begin) fail(shown + ": data_offsets end before they begin");
        if (e.dtype_size != 0 && e.end - e.begin != bytes)
            fail(shown + ": shape " + e.info.shape.text() + " of " + e.info.dtype + " needs " + std::to_string(bytes) +
                 " bytes but data_offsets span " + std::to_string(e.end - e.begin));
        return e;
    }
};

std::vector<Entry> parse_header(std::string_view bytes, const std::string& source, std::string_view* data,
                                std::map<std::string, std::string>* metadata = nullptr) {
    auto fail = [&](const std::string& m) -> void { throw InputError(source + ": " + m); };
    // Not a safetensors file at all: say what it is when its bytes tell (an .npy, a zip).
    auto not_safetensors = [&](const std::string& why) {
        fail("not a model file (no safetensors header: " + why + ")" +
             detail::content_hint(bytes.substr(0, 16), detail::Hint::not_safetensors));
    };
    if (bytes.size() < 8) not_safetensors("shorter than its 8-byte header length");
    std::uint64_t n = 0;
    for (int k = 0; k < 8; ++k) n |= std::uint64_t(static_cast<unsigned char>(bytes[std::size_t(k)])) << (8 * k);
    if (n > max_json_header_bytes)
        not_safetensors("its header length " + std::to_string(n) + " exceeds the limit of " +
                        std::to_string(max_json_header_bytes) + " bytes");
    if (bytes.size() - 8 < n) fail("truncated safetensors header: it needs " + std::to_string(n) + " bytes, the file has " + std::to_string(bytes.size() - 8));
    if (n < 2 || bytes[8] != '{') not_safetensors("the header is not a JSON object");
    // The header is UTF-8 text, as the reference reader requires before it parses the JSON.
    const std::string_view header = bytes.substr(8, n);
    for (std::size_t i = 0; i < header.size();) {
        const std::size_t len = static_cast<unsigned char>(header[i]) < 0x80 ? 1 : utf8_length(header, i);
        if (len == 0) fail("malformed header: not valid UTF-8 at byte " + std::to_string(8 + i));
        i += len;
    }
    JsonHeaderParser parser(bytes.substr(8, n), source);
    std::vector<Entry> entries = parser.parse();
    if (metadata) *metadata = std::move(parser.metadata);
    *data = bytes.substr(8 + n);
    // Offsets inside the data, no two tensors sharing bytes, and no byte of the data unused
    // (the format forbids holes: a hole is a damaged or doctored file).
    std::vector<const Entry*> by_offset;
    for (const Entry& e : entries) {
        if (e.end > data->size())
            fail("truncated data: tensor '" + detail::printable(e.info.name, 60) + "' ends at byte " + std::to_string(e.end) +
                 " of the data, which has " + std::to_string(data->size()));
        by_offset.push_back(&e);
    }
    std::sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) { return a->begin < b->begin; });
    const Entry* reach = nullptr;  // the tensor reaching furthest so far
    for (const Entry* e : by_offset) {
        if (e->end == e->begin) continue;  // an empty tensor holds no bytes
        if (reach && e->begin < reach->end)
            fail("tensors '" + detail::printable(reach->info.name, 60) + "' and '" + detail::printable(e->info.name, 60) + "' overlap");
        const std::uint64_t covered = reach ? reach->end : 0;
        if (e->begin > covered)
            fail("bytes " + std::to_string(covered) + " to " + std::to_string(e->begin) + " of the data belong to no tensor" +
                 (reach ? " (between '" + detail::printable(reach->info.name, 60) + "' and '" : " (before '") +
                 detail::printable(e->info.name, 60) + "')");
        if (!reach || e->end > reach->end) reach = e;
    }
    const std::uint64_t used = reach ? reach->end : 0;
    if (used < data->size())
        fail(std::to_string(data->size() - used) + " bytes after the last tensor's data belong to no tensor");
    return entries;
}

std::string names_text(const std::vector<Entry>& entries) {
    std::vector<std::string> names;
    for (const Entry& e : entries) names.push_back(e.info.name);
    return printable_names(names, 60);
}

}  // namespace

// Why a tensor of a well-formed file cannot be read as float32 values ("" when it can).
std::string unreadable(const TensorInfo& t) {
    if (t.dtype != "F32" && t.dtype != "F16" && t.dtype != "BF16" && t.dtype != "F64")
        return "dtype " + detail::printable(t.dtype, 60) + " is not supported (attn reads F32, F16, BF16 and F64)";
    if (t.shape.rank() == 0) return "0-d tensor (a single number): expected at least one dimension";
    if (t.shape.numel() == 0) return "empty tensor: shape " + t.shape.text();
    return "";
}

std::string safetensors_metadata(std::string_view bytes, const std::string& key, const std::string& source) {
    std::string_view data;
    std::map<std::string, std::string> metadata;
    parse_header(bytes, source, &data, &metadata);
    const auto it = metadata.find(key);
    return it == metadata.end() ? "" : it->second;
}

std::vector<TensorInfo> safetensors_list(std::string_view bytes, const std::string& source) {
    std::string_view data;
    std::vector<TensorInfo> out;
    for (Entry& e : parse_header(bytes, source, &data)) {
        e.info.note = unreadable(e.info);
        out.push_back(std::move(e.info));
    }
    return out;
}

std::vector<TensorBytes> safetensors_entries(std::string_view bytes, const std::string& source) {
    std::string_view data;
    std::vector<TensorBytes> out;
    for (Entry& e : parse_header(bytes, source, &data)) {
        e.info.note = unreadable(e.info);
        out.push_back({std::move(e.info), data.substr(e.begin, e.end - e.begin)});
    }
    return out;
}

Tensor safetensors_tensor(std::string_view bytes, const std::string& name, const std::string& source, Finite finite,
                          std::size_t max_dims, HalfTensor* sixteen) {
    std::string_view data;
    const std::vector<Entry> entries = parse_header(bytes, source, &data);
    const Entry* found = nullptr;
    if (name.empty() && entries.size() == 1) found = &entries[0];
    for (const Entry& e : entries)
        if (!name.empty() && e.info.name == name) found = &e;
    if (entries.empty()) throw InputError(source + ": the file holds no tensors");
    if (!found && name.empty())
        throw InputError(source + ": holds " + std::to_string(entries.size()) + " tensors (" + names_text(entries) +
                         "): name one as " + source + ":NAME");
    if (!found) throw InputError(source + ": no tensor '" + detail::printable(name, 60) + "' (it holds: " + names_text(entries) + ")");
    const std::string where = name.empty() ? source : source + ":" + name;
    auto fail = [&](const std::string& m) -> void { throw InputError(where + ": " + m); };
    if (const std::string why = unreadable(found->info); !why.empty()) fail(why);
    const std::string& dtype = found->info.dtype;
    const Shape& shape = found->info.shape;
    if (shape.rank() > max_dims)
        fail("shape " + shape.text() + " has " + std::to_string(shape.rank()) + " dimensions: at most " +
             std::to_string(max_dims) + " are supported here");
    // The input limit of every file and npz member (attn model maps its weights instead)
    if (found->end - found->begin > detail::max_input_bytes)
        fail(std::to_string(found->end - found->begin) + " bytes: a tensor larger than 2 GiB is not supported as an input");

    const auto* p = reinterpret_cast<const unsigned char*>(data.data()) + found->begin;
    const detail::FloatKind kind = dtype == "F32"   ? detail::FloatKind::f32
                                   : dtype == "F16" ? detail::FloatKind::f16
                                   : dtype == "F64" ? detail::FloatKind::f64
                                                    : detail::FloatKind::bf16;
    if (sixteen && (kind == detail::FloatKind::f16 || kind == detail::FloatKind::bf16)) {  // the bits as they are (little-endian), values checked
        HalfTensor h(shape, kind == detail::FloatKind::f16 ? ElementType::f16 : ElementType::bf16);
        const std::size_t rows = h.rows(), cols = h.cols(), n = shape.numel();
        for (std::size_t k = 0; k < n; ++k) {
            detail::check_finite(finite, detail::decode_float(p + k * 2, kind), shape, k, where);
            h.slice_data(k / (rows * cols))[(k / cols % rows) * h.row_stride() + k % cols] =
                std::uint16_t(p[k * 2] | p[k * 2 + 1] << 8);
        }
        *sixteen = std::move(h);
        return Tensor();
    }
    Tensor t(shape);
    const std::size_t rows = t.rows(), cols = t.cols(), n = shape.numel();
    for (std::size_t k = 0; k < n; ++k) {
        const unsigned char* b = p + k * found->dtype_size;
        detail::check_range(b, kind, shape, k, where);
        const float v = detail::decode_float(b, kind);
        detail::check_finite(finite, v, shape, k, where);
        t.slice_data(k / (rows * cols))[(k / cols % rows) * t.row_stride() + k % cols] = v;
    }
    return t;
}

}  // namespace attn::io
