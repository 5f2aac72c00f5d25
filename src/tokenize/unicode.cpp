// Unicode lookups over the generated tables, UTF-8 coding, normalization and lower-casing.
#include "tokenize/unicode.hpp"

#include <algorithm>
#include <string>

#include "attn/error.hpp"
#include "tokenize/unicode_tables.hpp"

namespace attn::unicode {

namespace t = tables;

namespace {

bool in_ranges(const t::Range* r, std::size_t n, char32_t c) {
    const t::Range* end = r + n;
    const t::Range* it = std::upper_bound(r, end, c, [](char32_t v, const t::Range& x) { return v < x.first; });
    return it != r && c <= (it - 1)->last;
}

const t::Decomposition* find_decomposition(char32_t c) {
    const t::Decomposition* end = t::decompositions + t::decomposition_count;
    const t::Decomposition* it = std::lower_bound(t::decompositions, end, c,
                                                  [](const t::Decomposition& d, char32_t v) { return d.cp < v; });
    return (it != end && it->cp == c) ? it : nullptr;
}

// Hangul syllables decompose and compose algorithmically (Unicode 15, section 3.12).
constexpr char32_t s_base = 0xAC00, l_base = 0x1100, v_base = 0x1161, t_base = 0x11A7;
constexpr char32_t l_count = 19, v_count = 21, t_count = 28, n_count = v_count * t_count, s_count = l_count * n_count;

void decompose(char32_t c, bool compat, std::u32string& out) {
    if (c >= s_base && c < s_base + s_count) {
        const char32_t s = c - s_base;
        out += char32_t(l_base + s / n_count);
        out += char32_t(v_base + (s % n_count) / t_count);
        if (s % t_count) out += char32_t(t_base + s % t_count);
        return;
    }
    const t::Decomposition* d = find_decomposition(c);
    if (!d || (d->compat && !compat)) {
        out += c;
        return;
    }
    for (std::size_t i = 0; i < d->length; ++i) decompose(t::decomposition_pool[d->offset + i], compat, out);
}

// The canonical ordering algorithm: each run of non-starters sorted stably by class.
void reorder(std::u32string& s) {
    std::size_t i = 0;
    while (i < s.size()) {
        if (combining_class(s[i]) == 0) { ++i; continue; }
        std::size_t j = i;
        while (j < s.size() && combining_class(s[j]) != 0) ++j;
        std::stable_sort(s.begin() + std::ptrdiff_t(i), s.begin() + std::ptrdiff_t(j),
                         [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
        i = j;
    }
}

char32_t compose_pair(char32_t a, char32_t b) {
    if (a >= l_base && a < l_base + l_count && b >= v_base && b < v_base + v_count)
        return s_base + ((a - l_base) * v_count + (b - v_base)) * t_count;
    if (a >= s_base && a < s_base + s_count && (a - s_base) % t_count == 0 && b > t_base && b < t_base + t_count)
        return a + (b - t_base);
    const t::Composition* end = t::compositions + t::composition_count;
    const t::Composition* it = std::lower_bound(t::compositions, end, std::pair{a, b},
                                                [](const t::Composition& x, std::pair<char32_t, char32_t> v) {
                                                    return x.first != v.first ? x.first < v.first : x.second < v.second;
                                                });
    return (it != end && it->first == a && it->second == b) ? it->composite : 0;
}

// The canonical composition algorithm over a decomposed, reordered string.
void compose(std::u32string& s) {
    if (s.empty()) return;
    std::size_t starter = std::u32string::npos;
    int last_ccc = -1;
    std::size_t out = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char32_t c = s[i];
        const int ccc = combining_class(c);
        if (starter != std::u32string::npos) {
            const bool blocked = last_ccc != -1 && (last_ccc == 0 || last_ccc >= ccc);
            if (!blocked) {
                if (char32_t composite = compose_pair(s[starter], c)) {
                    s[starter] = composite;
                    continue;
                }
            }
        }
        if (ccc == 0) {
            starter = out;
            last_ccc = -1;
        } else {
            last_ccc = ccc;
        }
        s[out++] = c;
    }
    s.resize(out);
}

bool is_cased(char32_t c) { return in_ranges(t::cased, t::cased_count, c); }
bool is_case_ignorable(char32_t c) { return in_ranges(t::case_ignorable, t::case_ignorable_count, c); }

}  // namespace

const char* version() { return t::unicode_version; }

Category category(char32_t c) {
    const t::CategoryRun* end = t::category_runs + t::category_run_count;
    const t::CategoryRun* it = std::upper_bound(t::category_runs, end, c,
                                                [](char32_t v, const t::CategoryRun& r) { return v < r.first; });
    return it == t::category_runs ? Category::Cn : Category((it - 1)->category);
}

int combining_class(char32_t c) {
    if (c < 0x300) return 0;
    const t::CccRun* end = t::ccc_runs + t::ccc_run_count;
    const t::CccRun* it = std::upper_bound(t::ccc_runs, end, c, [](char32_t v, const t::CccRun& r) { return v < r.first; });
    return it == t::ccc_runs ? 0 : (it - 1)->ccc;
}

bool is_white_space(char32_t c) { return in_ranges(t::white_space, t::white_space_count, c); }
bool is_alphabetic(char32_t c) { return in_ranges(t::alphabetic, t::alphabetic_count, c); }
bool is_join_control(char32_t c) { return in_ranges(t::join_control, t::join_control_count, c); }

bool is_js_space(char32_t c) {
    switch (c) {
        case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0xFEFF: case 0x2028: case 0x2029:
            return true;
        default:
            return c > 0x7F && category(c) == Category::Zs;
    }
}

std::u32string decode_utf8(std::string_view s) {
    std::u32string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) { out += char32_t(c); ++i; continue; }
        std::size_t n;
        char32_t cp, min;
        if (c >= 0xC2 && c <= 0xDF) n = 1, cp = c & 0x1F, min = 0x80;
        else if (c >= 0xE0 && c <= 0xEF) n = 2, cp = c & 0x0F, min = 0x800;
        else if (c >= 0xF0 && c <= 0xF4) n = 3, cp = c & 0x07, min = 0x10000;
        else throw InputError("invalid UTF-8 at byte " + std::to_string(i));
        for (std::size_t k = 1; k <= n; ++k) {
            if (i + k >= s.size()) throw InputError("truncated UTF-8 at byte " + std::to_string(i));
            const unsigned char d = static_cast<unsigned char>(s[i + k]);
            if ((d & 0xC0) != 0x80) throw InputError("invalid UTF-8 at byte " + std::to_string(i));
            cp = (cp << 6) | (d & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            throw InputError("invalid UTF-8 at byte " + std::to_string(i));
        out += cp;
        i += n + 1;
    }
    return out;
}

std::string encode_utf8(std::u32string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char32_t c : text) append_utf8(out, c);
    return out;
}

std::u32string normalize(std::u32string_view text, Form form) {
    const bool compat = form == Form::nfkc || form == Form::nfkd;
    std::u32string out;
    out.reserve(text.size());
    for (char32_t c : text) decompose(c, compat, out);
    reorder(out);
    if (form == Form::nfc || form == Form::nfkc) compose(out);
    return out;
}

std::u32string to_lower(std::u32string_view s) {
    std::u32string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char32_t c = s[i];
        if (c == 0x03A3) {  // Final_Sigma (Unicode 15, table 3-17)
            std::size_t b = i;
            while (b > 0 && is_case_ignorable(s[b - 1])) --b;
            const bool after_cased = b > 0 && is_cased(s[b - 1]);
            std::size_t a = i + 1;
            while (a < s.size() && is_case_ignorable(s[a])) ++a;
            const bool before_cased = a < s.size() && is_cased(s[a]);
            out += (after_cased && !before_cased) ? char32_t(0x03C2) : char32_t(0x03C3);
            continue;
        }
        if (c < 0x80) { out += (c >= 'A' && c <= 'Z') ? c + 32 : c; continue; }
        const t::CaseMapping* end = t::lowercase + t::lowercase_count;
        const t::CaseMapping* it = std::lower_bound(t::lowercase, end, c,
                                                    [](const t::CaseMapping& m, char32_t v) { return m.cp < v; });
        if (it != end && it->cp == c) out.append(t::lowercase_pool + it->offset, it->length);
        else out += c;
    }
    return out;
}

}  // namespace attn::unicode
