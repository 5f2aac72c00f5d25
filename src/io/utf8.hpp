#pragma once

#include <cstddef>
#include <string>
#include <string_view>

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

// A C0 or C1 control character (or DEL) starts at s[i]: it would drive a terminal.
inline bool control_at(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    return c < 0x20 || c == 0x7F ||
           (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
            static_cast<unsigned char>(s[i + 1]) <= 0x9F);
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

}  // namespace attn::io
