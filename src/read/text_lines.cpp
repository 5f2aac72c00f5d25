// Text tensors one row per line (numbers separated by spaces, tabs, commas or semicolons,
// '#' comments), in blocks headed by an index comment ("# [b, h]", "# NAME [b, h] RxC") or a
// pretty title ("NAME [b, h] (RxC):") for more than two dimensions; long runs of plain
// rows are read by all threads. Part of the TextReader of text_reader.hpp.
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

namespace attn::io::detail {

std::string_view TextReader::trim(std::string_view v) {
    while (!v.empty() && is_blank(v.front())) v.remove_prefix(1);
    while (!v.empty() && is_blank(v.back())) v.remove_suffix(1);
    return v;
}

std::optional<std::pair<std::size_t, std::size_t>> TextReader::parse_dims(std::string_view v, bool& too_large) {
    std::size_t r = 0, c = 0;
    const char* end = v.data() + v.size();
    const auto a = std::from_chars(v.data(), end, r);
    const auto read = [](std::from_chars_result res) { return res.ec == std::errc() || res.ec == std::errc::result_out_of_range; };
    if (!read(a) || a.ptr == end || *a.ptr != 'x') return std::nullopt;
    const auto b = std::from_chars(a.ptr + 1, end, c);
    if (!read(b) || b.ptr != end || b.ptr == a.ptr + 1) return std::nullopt;
    if (a.ec != std::errc() || b.ec != std::errc()) too_large = true;
    return std::pair{r, c};
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
    h.name = std::string(v);
    if (h.has_index || (!v.empty() && h.dims) || draw) return checked(std::move(h), too_large);
    return std::nullopt;
}

std::optional<TextReader::Header> TextReader::pretty_title(std::size_t i, std::size_t eol) const {
    const std::string_view line = trim(s_.substr(i, eol - i));
    if (line.size() < 2 || line.substr(line.size() - 2) != "):") return std::nullopt;
    const std::size_t open = line.rfind(" (");
    if (open == std::string_view::npos || open == 0) return std::nullopt;
    Header h;
    h.pos = i;
    bool too_large = false;
    h.dims = parse_dims(line.substr(open + 2, line.size() - open - 4), too_large);
    if (!h.dims) return std::nullopt;
    std::string_view v = trim(line.substr(0, open));
    if (auto index = take_index(v, too_large)) {
        h.index = std::move(*index);
        h.has_index = true;
    }
    if (v.empty() || !(is_one_token(v) || is_draw_name(v))) return std::nullopt;
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
    if (h.dims && (h.dims->first != rows || h.dims->second != cols_))
        fail_at(h.pos, "the header says " + std::to_string(h.dims->first) + "x" + std::to_string(h.dims->second) +
                           " but the " + (h.has_index ? "block" : "matrix") + " is " + std::to_string(rows) + "x" +
                           std::to_string(cols_));
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
    if (!first.has_index || !h.has_index || first.name != h.name)
        fail_at(h.pos, "a second matrix starts here; attn reads one matrix per input");
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
    std::size_t i = pos_, plain_tried_until = 0;
    while (i <= s_.size()) {
        if (i >= plain_tried_until) {  // a long run of plain rows goes to all threads
            const auto [next, run_end] = read_plain_run(i);
            plain_tried_until = run_end;
            if (next != i) {
                i = next;
                continue;
            }
        }
        std::size_t eol = s_.find('\n', i);
        if (eol == std::string_view::npos) eol = s_.size();
        std::size_t first = i;
        while (first < eol && is_blank(s_[first])) ++first;
        std::optional<Header> h;
        if (first < eol) h = s_[first] == '#' ? comment_header(first, eol) : pretty_title(first, eol);
        if (h) {
            start_block(std::move(*h));
        } else {
            const std::size_t before = rows_;
            read_line(i, eol);
            block_rows_.back() += rows_ - before;
        }
        i = eol + 1;
    }
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
    dims_ = extent;
    dims_.push_back(block_rows_[0]);
    dims_.push_back(cols_);
}

std::size_t TextReader::plain_run_end(std::size_t i) const {
    constexpr std::size_t npos = std::string_view::npos, pieces = 8;
    for (std::size_t from = i, window = std::size_t(1) << 18; from <= s_.size(); from += window, window *= 2) {
        const std::size_t to = std::min(s_.size() + 1, from + window);  // the lines starting in [from, to)
        std::array<std::size_t, pieces> found;
        found.fill(npos);
        parallel_for(pieces, [&](std::size_t k) {
            std::size_t line = from + (to - from) * k / pieces;
            const std::size_t until = from + (to - from) * (k + 1) / pieces;
            if (line > i) {  // the first line start at or after it
                const std::size_t nl = s_.find('\n', line - 1);
                line = nl == npos ? s_.size() + 1 : nl + 1;
            }
            while (line < until && line <= s_.size()) {
                std::size_t eol = s_.find('\n', line);
                if (eol == npos) eol = s_.size();
                std::size_t first = line;
                while (first < eol && is_blank(s_[first])) ++first;
                if (first < eol && !(is_digit(s_[first]) || s_[first] == '-' || s_[first] == '.')) {
                    found[k] = line;
                    return;
                }
                line = eol + 1;
            }
        });
        for (const std::size_t at : found)
            if (at != npos) return at;
        if (to > s_.size()) break;
    }
    return s_.size() + 1;
}

std::pair<std::size_t, std::size_t> TextReader::read_plain_run(std::size_t i) {
    constexpr std::size_t min_run_bytes = std::size_t(1) << 20, bands = 16;
    if (s_.size() - i < min_run_bytes) return {i, s_.size() + 1};
    const std::size_t run_end = plain_run_end(i);
    const std::size_t stop = std::min(run_end, s_.size());  // bytes [i, stop) hold the run
    if (stop - i < min_run_bytes) return {i, run_end};
    std::vector<std::size_t> cut(bands + 1, stop);  // band b: [cut[b], cut[b + 1])
    cut[0] = i;
    for (std::size_t b = 1; b < bands; ++b) {
        const std::size_t nl = s_.find('\n', std::max(cut[b - 1], i + (stop - i) / bands * b));
        cut[b] = nl == std::string_view::npos || nl >= stop ? stop : nl + 1;
    }
    struct Band {
        std::vector<float> values;
        std::size_t rows = 0, cols = 0;
        bool plain = true;
    };
    std::vector<Band> out(bands);
    parallel_for(bands, [&](std::size_t b) {
        Band& band = out[b];
        // Values are stored through a local cursor, not push_back: the vector's end pointer
        // was stored and loaded again for every number, a chain through memory (measured:
        // 12% of the CPU time of reading a 12.8 MB csv; the zero-fill of the estimate
        // costs far less).
        const std::size_t estimate = std::max<std::size_t>(64, (cut[b + 1] - cut[b]) / 8);
        reserve_checked(band.values, estimate);
        band.values.resize(estimate);
        float* at = band.values.data();
        float* at_end = at + band.values.size();
        for (std::size_t line = cut[b]; line < cut[b + 1] && band.plain;) {
            std::size_t eol = s_.find('\n', line);
            if (eol == std::string_view::npos || eol > cut[b + 1]) eol = std::min(cut[b + 1], s_.size());
            std::size_t count = 0, j = line;
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
    });
    std::size_t cols = cols_, rows = 0;
    for (const Band& band : out) {
        if (!band.plain || (band.rows > 0 && cols != 0 && band.cols != cols)) return {i, run_end};
        if (band.rows > 0) cols = band.cols;
        rows += band.rows;
    }
    // Kept as they are (no copy until the tensor is filled), after what came before them.
    if (!values_.empty()) read_pieces_.push_back(std::move(values_));
    values_.clear();
    for (Band& band : out)
        if (!band.values.empty()) read_pieces_.push_back(std::move(band.values));
    cols_ = cols;
    rows_ += rows;
    block_rows_.back() += rows;
    return {run_end, run_end};
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
