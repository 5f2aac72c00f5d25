#include "tokenize/byte_level.hpp"

#include <array>

#include "tokenize/unicode.hpp"

namespace attn::tokenize {

namespace {
std::array<char32_t, 256> make_table() {
    std::array<char32_t, 256> t{};
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        t[std::size_t(b)] = printable ? char32_t(b) : next++;
    }
    return t;
}
}  // namespace

char32_t byte_to_char(unsigned char b) {
    static const std::array<char32_t, 256> table = make_table();
    return table[b];
}

std::u32string to_byte_level(std::u32string_view text) {
    std::u32string out;
    for (char b : unicode::encode_utf8(text)) out += byte_to_char(static_cast<unsigned char>(b));
    return out;
}

}  // namespace attn::tokenize
