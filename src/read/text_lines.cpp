// Text tensors one row per line (numbers separated by spaces, tabs, commas or semicolons,
// '#' comments), in blocks headed by an index comment ("# [b, h]", "# NAME [b, h] RxC") or a
// pretty title ("NAME [b, h] (RxC):") for more than two dimensions; long texts are cut into
// bands read by all threads. Part of the TextReader of text_reader.hpp.
#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "read/text_reader.hpp"
#include "runtime/parallel.hpp"
#include "runtime/system_memory.hpp"
#include "runtime/utf8.hpp"

namespace attn::io::detail {

std::string_view TextReader::trim(std::string_view v) {
    while (!v.empty() && is_blank(v.front())) v.remove_prefix(1);
    while (!v.empty() && is_blank(v.back())) v.remove_suffix(1);
    return v;
}

std::optional<TextReader::Dims> TextReader::parse_dims(std::string_view v, bool& too_large) {
    const bool parenthesised = v.size() >= 2 && v.front() == '(' && v.back() == ')';  // "(N,)" only
    if (parenthesised) v = v.substr(1, v.size() - 2);
    const auto read = [](std::from_chars_result res) { return res.ec == std::errc() || res.ec == std::errc::result_out_of_range; };
    const char* end = v.data() + v.size();
    Dims d;
    const auto a = std::from_chars(v.data(), end, d.rows);
    if (!read(a) || a.ptr == end) return std::nullopt;
    if (parenthesised && *a.ptr == ',' && a.ptr + 1 == end) {  // "(N,)"
        if (a.ec != std::errc()) too_large = true;
        return Dims{1, d.rows, true};
    }
    if (parenthesised || *a.ptr != 'x') return std::nullopt;
    const auto b = std::from_chars(a.ptr + 1, end, d.cols);
    if (!read(b) || b.ptr != end || b.ptr == a.ptr + 1) return std::nullopt;
    if (a.ec != std::errc() || b.ec != std::errc()) too_large = true;
    return d;
}

std::optional<std::vector<std::size_t>> TextReader::take_index(std::string_view& v, bool& too_large) {
    if (v.empty() || v.back() != ']') return std::nullopt;
    const std::size_t open = v.rfind('[');
    if (open == std::string_view::npos) return std::nullopt;
    std::vector<std::size_t> index;
    std::string_view body = trim(v.substr(open + 1, v.size() - open - 2));
    while (!body.empty()) {
        std::size_t k = 0;
        const auto res = std::from_chars(body.data(), body.data() + body.size(), k);
        if (res.ec == std::errc::result_out_of_range) too_large = true;
        else if (res.ec != std::errc() || res.ptr == body.data() || index.size() == max_rank) return std::nullopt;
        index.push_back(k);
        body = trim(body.substr(std::size_t(res.ptr - body.data())));
        if (body.empty()) break;
        if (body[0] != ',') return std::nullopt;
        body = trim(body.substr(1));
        if (body.empty()) return std::nullopt;
    }
    v = trim(v.substr(0, open));
    return index;
}

bool TextReader::is_draw_name(std::string_view name) {
    if (name.substr(0, 5) != "draw ") return false;
    name.remove_prefix(5);
    return !name.empty() && std::all_of(name.begin(), name.end(), is_digit);
}

TextReader::Header TextReader::checked(Header h, bool too_large) const {
    if (too_large) fail_at(h.pos, "this block header's index or size is too large");
    return h;
}

std::optional<TextReader::Header> TextReader::comment_header(std::size_t i, std::size_t eol) const {
    std::string_view v = trim(s_.substr(i + 1, eol - i - 1));
    Header h;
    h.pos = i;
    bool too_large = false;
    const std::size_t sp = v.find_last_of(" \t");
    if (auto d = parse_dims(sp == std::string_view::npos ? v : v.substr(sp + 1), too_large)) {
        h.dims = d;
        v = sp == std::string_view::npos ? std::string_view() : trim(v.substr(0, sp));
    }
    if (auto index = take_index(v, too_large)) {
        h.index = std::move(*index);
        h.has_index = true;
    }
    const bool draw = is_draw_name(v);
    if (!v.empty() && !draw && !is_one_token(v)) return std::nullopt;
    if (h.dims && h.dims->vector && h.has_index) fail_at(i, "a vector (N,) has no blocks: drop the index or the ','");
    h.name = std::string(v);
    if (h.has_index || (!v.empty() && h.dims) || draw) return checked(std::move(h), too_large);
    return std::nullopt;
}

std::optional<std::string> TextReader::pretty_title_name(std::string_view line) {
    line = trim(line);
    // a record's title, "NAME:" (attend's variance): it ends the result before it
    if (line.size() >= 2 && line.back() == ':' && is_one_token(line) && line.find('(') == std::string_view::npos)
        return std::string(line.substr(0, line.size() - 1));
    if (line.size() < 2 || line.substr(line.size() - 2) != "):") return std::nullopt;
    const std::size_t open = line.rfind(" (");
    if (open == std::string_view::npos || open == 0) return std::nullopt;
    bool too_large = false;
    const std::string_view size = line.substr(open + 2, line.size() - open - 4);
    if (!parse_dims(size.ends_with(',') ? line.substr(open + 1, line.size() - open - 2) : size, too_large))
        return std::nullopt;
    std::string_view v = trim(line.substr(0, open));
    take_index(v, too_large);
    if (v.empty() || !(is_one_token(v) || is_draw_name(v))) return std::nullopt;
    return std::string(v);
}

std::optional<TextReader::Header> TextReader::pretty_title(std::size_t i, std::size_t eol) const {
    const std::string_view line = trim(s_.substr(i, eol - i));
    if (line.size() < 2 || line.substr(line.size() - 2) != "):") return std::nullopt;
    const std::size_t open = line.rfind(" (");
    if (open == std::string_view::npos || open == 0) return std::nullopt;
    Header h;
    h.pos = i;
    bool too_large = false;
    // "(RxC)" or "(N,)": parse_dims takes the parentheses only around a vector's size
    const std::string_view size = line.substr(open + 2, line.size() - open - 4);
    h.dims = parse_dims(size.ends_with(',') ? line.substr(open + 1, line.size() - open - 2) : size, too_large);
    if (!h.dims) return std::nullopt;
    std::string_view v = trim(line.substr(0, open));
    if (auto index = take_index(v, too_large)) {
        h.index = std::move(*index);
        h.has_index = true;
    }
    if (v.empty() || !(is_one_token(v) || is_draw_name(v))) return std::nullopt;
    if (h.dims->vector && h.has_index) fail_at(i, "a vector (N,) has no blocks: drop the index or the ','");
    h.name = std::string(v);
    return checked(std::move(h), too_large);
}

std::string TextReader::index_text(const std::vector<std::size_t>& index) {
    std::string s = "[";
    for (std::size_t k = 0; k < index.size(); ++k) s += (k ? ", " : "") + std::to_string(index[k]);
    return s + "]";
}

void TextReader::finish_block() {
    const Header& h = headers_.back();
    const std::size_t rows = block_rows_.back();
    if (h.pos == std::string_view::npos) return;
    if (rows == 0) fail_at(h.pos, "this block has no rows");
    if (h.dims && (h.dims->rows != rows || h.dims->cols != cols_))
        fail_at(h.pos, "the header says " + h.dims->text() + " but the " + (h.has_index ? "block" : "matrix") + " is " +
                           std::to_string(rows) + "x" + std::to_string(cols_) +
                           (h.dims->vector && rows != 1 ? " (a vector is one row)" : ""));
    if (block_rows_.size() > 1 && rows != block_rows_[0])
        fail_at(h.pos, "block " + index_text(h.index) + " has " + std::to_string(rows) + " rows, expected " +
                           std::to_string(block_rows_[0]) + " as block " + index_text(headers_[0].index));
}

void TextReader::start_block(Header h) {
    if (block_rows_.back() == 0 && headers_.back().pos == std::string_view::npos) {
        headers_.back() = std::move(h);  // nothing came before the first header
        return;
    }
    finish_block();
    const Header& first = headers_[0];
    // Blocks without an index, or of another name, are another tensor: never glued on.
    if (!first.has_index && !h.has_index && !first.name.empty() && first.name == h.name)
        fail_at(h.pos, "a second result named '" + printable_utf8(h.name) +
                           "' starts here: attn reads one matrix per input, and the name cannot tell the two apart");
    if (!first.has_index || !h.has_index || first.name != h.name)
        fail_at(h.pos, "a second matrix starts here; attn reads one matrix per input" +
                           (s_[h.pos] == '#' ? name_one_hint(first.name) : std::string()));
    if (h.index.size() != first.index.size())
        fail_at(h.pos, "index " + index_text(h.index) + " has " + std::to_string(h.index.size()) +
                           " dimensions, the first block's " + index_text(first.index) + " has " +
                           std::to_string(first.index.size()));
    headers_.push_back(std::move(h));
    block_rows_.push_back(0);
}

void TextReader::read_lines() {
    headers_.assign(1, Header{});
    block_rows_.assign(1, 0);
    // Long texts are cut into bands once, whatever their pattern of lines, and read by all
    // threads; a band the fast path cannot read is read again by the serial loop.
    constexpr std::size_t min_parallel_bytes = std::size_t(1) << 20;
    if (s_.size() - pos_ >= min_parallel_bytes) read_bands();
    else read_serially(pos_, s_.size() + 1);
    finish_block();
    // The shape: the grid of block indices, which come in C order (last index fastest)
    // and fill it, then rows × columns.
    std::vector<std::size_t> extent(headers_[0].index.size(), 0);
    for (const Header& h : headers_)
        for (std::size_t k = 0; k < extent.size(); ++k) extent[k] = std::max(extent[k], h.index[k] + 1);
    std::vector<std::size_t> expected(extent.size(), 0);
    bool wrapped = false;  // the odometer went past the last index
    for (const Header& h : headers_) {
        if (wrapped || h.index != expected)
            fail_at(h.pos, "block " + index_text(h.index) + " is out of order: expected " +
                               (wrapped ? std::string("no more blocks") : index_text(expected)) +
                               " (blocks come in C order, last index fastest)");
        wrapped = true;
        for (std::size_t k = expected.size(); k-- > 0;) {
            if (++expected[k] < extent[k]) {
                wrapped = false;
                break;
            }
            expected[k] = 0;
        }
    }
    if (!extent.empty() && !wrapped)
        throw InputError(source_ + ": block " + index_text(expected) +
                         " is missing: the blocks do not fill the grid of their indices");
    if (rows_ == 0) return;
    if (headers_.size() == 1 && headers_[0].dims && headers_[0].dims->vector) {  // "(N,)", one row (finish_block)
        dims_ = {cols_};
        return;
    }
    dims_ = extent;
    dims_.push_back(block_rows_[0]);
    dims_.push_back(cols_);
}

std::optional<TextReader::Header> TextReader::line_header(std::size_t first, std::size_t eol) const {
    if (first >= eol) return std::nullopt;
    return s_[first] == '#' ? comment_header(first, eol) : pretty_title(first, eol);
}

void TextReader::read_serially(std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to && i <= s_.size();) {
        std::size_t eol = s_.find('\n', i);
        if (eol == std::string_view::npos) eol = s_.size();
        std::size_t first = i;
        while (first < eol && is_blank(s_[first])) ++first;
        if (std::optional<Header> h = line_header(first, eol)) {
            start_block(std::move(*h));
        } else {
            const std::size_t before = rows_;
            read_line(i, eol);
            block_rows_.back() += rows_ - before;
        }
        i = eol + 1;
    }
}

void TextReader::read_bands() {
    constexpr std::size_t bands = 16;
    const std::size_t end = s_.size() + 1;  // the lines starting before it (the last may be empty)
    std::vector<std::size_t> cut(bands + 1, end);  // band b: the lines starting in [cut[b], cut[b + 1])
    cut[0] = pos_;
    for (std::size_t b = 1; b < bands; ++b) {
        const std::size_t nl = s_.find('\n', std::max(cut[b - 1], pos_ + (s_.size() - pos_) / bands * b));
        cut[b] = nl == std::string_view::npos ? end : nl + 1;
    }
    std::vector<Band> out(bands);
    parallel_for(bands, [&](std::size_t b) { out[b] = read_band(cut[b], cut[b + 1]); });
    // In order, as the serial loop would: rows, then each header, then the rows after it.
    for (std::size_t b = 0; b < bands; ++b) {
        Band& band = out[b];
        if (!band.plain || (band.rows > 0 && cols_ != 0 && band.cols != cols_)) {
            read_serially(cut[b], cut[b + 1]);  // its full rules and messages
            continue;
        }
        if (band.rows > 0) cols_ = band.cols;
        std::size_t counted = 0;
        for (auto& [rows_before, header] : band.headers) {
            block_rows_.back() += rows_before - counted;
            rows_ += rows_before - counted;
            counted = rows_before;
            start_block(std::move(header));
        }
        block_rows_.back() += band.rows - counted;
        rows_ += band.rows - counted;
        // Kept as they are (no copy until the tensor is filled), after what came before them.
        if (!values_.empty()) read_pieces_.push_back(std::move(values_));
        values_.clear();
        if (!band.values.empty()) read_pieces_.push_back(std::move(band.values));
    }
}

TextReader::Band TextReader::read_band(std::size_t from, std::size_t to) const {
    Band band;
    // Values are stored through a local cursor, not push_back: the vector's end pointer was
    // stored and loaded again for every number, a chain through memory (measured: 12% of the
    // CPU time of reading a 12.8 MB csv; the zero-fill of the estimate costs far less).
    const std::size_t estimate = std::max<std::size_t>(64, (to - from) / 8);
    reserve_checked(band.values, estimate);
    band.values.resize(estimate);
    float* at = band.values.data();
    float* at_end = at + band.values.size();
    for (std::size_t line = from; line < to && band.plain;) {
        std::size_t eol = s_.find('\n', line);
        if (eol == std::string_view::npos) eol = s_.size();
        std::size_t j = line;
        while (j < eol && is_blank(s_[j])) ++j;
        std::optional<Header> header;
        try {
            header = line_header(j, eol);
        } catch (const InputError&) {  // a header that cannot be read: the serial loop says so
            band.plain = false;
            break;
        }
        if (header) {
            band.headers.emplace_back(band.rows, std::move(*header));
            line = eol + 1;
            continue;
        }
        std::size_t count = 0;
        for (;;) {  // read_line's tokens
            while (j < eol && is_blank(s_[j])) ++j;
            if (j < eol && (s_[j] == ',' || s_[j] == ';') && count > 0) {
                ++j;
                while (j < eol && is_blank(s_[j])) ++j;
            }
            if (j == eol || s_[j] == '#') break;
            float f;
            const std::size_t after = parse_plain_number(j, eol, ends_in_line, &f);
            if (after == std::string_view::npos) {
                band.plain = false;
                break;
            }
            if (at == at_end) {
                const std::size_t n = band.values.size();
                reserve_checked(band.values, 2 * n);
                band.values.resize(2 * n);
                at = band.values.data() + n, at_end = band.values.data() + 2 * n;
            }
            *at++ = f;
            ++count;
            j = after;
        }
        if (count > 0) {
            if (band.cols == 0) band.cols = count;
            band.plain &= count == band.cols;
            ++band.rows;
        }
        line = eol + 1;
    }
    band.values.resize(std::size_t(at - band.values.data()));
    return band;
}

void TextReader::read_line(std::size_t begin, std::size_t eol) {
    std::size_t count = 0;
    std::size_t i = begin;
    for (;;) {
        while (i < eol && is_blank(s_[i])) ++i;
        if (i < eol && (s_[i] == ',' || s_[i] == ';') && count > 0) {  // one separator after a value
            ++i;
            while (i < eol && is_blank(s_[i])) ++i;
        }
        if (i == eol || s_[i] == '#') break;
        if (const std::size_t after = push_plain_number(i, eol, ends_in_line); after != std::string_view::npos) {
            ++count;
            i = after;
            continue;
        }
        std::size_t end = i;
        while (end < eol && !is_blank(s_[end]) && s_[end] != ',' && s_[end] != ';' && s_[end] != '#') ++end;
        if (end == i) fail_expected(i, "a number");  // a separator with no value before it
        push_number(i, end);
        ++count;
        i = end;
    }
    end_row(begin, count);
}

}  // namespace attn::io::detail
