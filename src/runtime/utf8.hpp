#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attn::io {

// Length of the valid UTF-8 sequence of 2 to 4 bytes at s[i], or 0: no overlong forms,
// surrogates or code points beyond U+10FFFF.
inline std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto byte = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
    const unsigned c = byte(0);
    const std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((byte(k) & 0xC0) != 0x80) return 0;
    const unsigned second = byte(1);
    if ((c == 0xE0 && second < 0xA0) || (c == 0xED && second > 0x9F) || (c == 0xF0 && second < 0x90) ||
        (c == 0xF4 && second > 0x8F))
        return 0;
    return n;
}

// Appends code point cp (at most U+10FFFF; callers have checked it) as UTF-8.
// The code point of the valid sequence of n bytes at s[i] (n as utf8_length gives it).
inline char32_t code_point_at(std::string_view s, std::size_t i, std::size_t n) {
    const auto b = static_cast<unsigned char>(s[i]);
    char32_t cp = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
    for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    return cp;
}

inline void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

// A C0 or C1 control character (or DEL) starts at s[i]: it would drive a terminal. So does a
// bidirectional embedding, override or isolate (U+202A-U+202E, U+2066-U+2069): it reorders
// what the terminal shows after it (a label could make a line read otherwise).
inline bool control_at(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
    return c < 0x20 || c == 0x7F || (c == 0xC2 && at(1) >= 0x80 && at(1) <= 0x9F) ||
           (c == 0xE2 && at(1) == 0x80 && at(2) >= 0xAA && at(2) <= 0xAE) ||
           (c == 0xE2 && at(1) == 0x81 && at(2) >= 0xA6 && at(2) <= 0xA9);
}

// Text from a file shown to the user (labels, tensor names): each control character and each
// byte that is not valid UTF-8 becomes '?', so it cannot drive a terminal (a lone 0x9B is CSI
// to an 8-bit one) and json and SVG stay UTF-8. At most max_chars characters (messages).
inline std::string printable_utf8(std::string_view s, std::size_t max_chars = std::string_view::npos) {
    std::string out;
    for (std::size_t i = 0, chars = 0; i < s.size() && chars < max_chars; ++chars) {
        const std::size_t n = static_cast<unsigned char>(s[i]) < 0x80 ? 1 : utf8_length(s, i);
        if (n == 0 || control_at(s, i)) out += '?';
        else out.append(s.substr(i, n));
        i += n ? n : 1;
    }
    return out;
}

// The names a file holds, for a message: the first 12 printable (each at most max_chars
// characters), then ", ... (N in all)".
inline std::string printable_names(const std::vector<std::string>& names,
                                   std::size_t max_chars = std::string_view::npos) {
    std::string s;
    for (std::size_t k = 0; k < names.size() && k < 12; ++k) s += (k ? ", " : "") + printable_utf8(names[k], max_chars);
    if (names.size() > 12) s += ", ... (" + std::to_string(names.size()) + " in all)";
    return s;
}

// Terminal columns a UTF-8 string takes (labels are tokens such as "café" or "日本"): one per
// code point, none for combining marks, two for East Asian wide and emoji code points.
// Bytes that are not valid UTF-8 count one column each.
inline std::size_t code_point_width(char32_t cp) {
    if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0xFE00 && cp <= 0xFE0F))
        return 0;
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF && cp != 0x303F) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                      (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
                      (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
    return wide ? 2 : 1;
}

inline std::size_t display_width(std::string_view s) {
    std::size_t width = 0;
    for (std::size_t i = 0; i < s.size();) {
        const auto b = static_cast<unsigned char>(s[i]);
        const std::size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
        bool valid = len > 0 && i + len <= s.size();
        char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
        for (std::size_t k = 1; valid && k < len; ++k) {
            const auto cont = static_cast<unsigned char>(s[i + k]);
            valid = (cont >> 6) == 0x2;
            cp = (cp << 6) | (cont & 0x3F);
        }
        width += valid ? code_point_width(cp) : 1;
        i += valid ? len : 1;
    }
    return width;
}

}  // namespace attn::io
