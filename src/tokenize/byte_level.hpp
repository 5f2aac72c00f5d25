// Internal to src/tokenize: GPT-2's byte-level alphabet, which shows each of the 256 byte
// values as a printable code point (printable Latin-1 bytes as themselves, the others from
// U+0100 up: the space is 'Ġ', U+0120).
#pragma once
#include <string>
#include <string_view>

namespace attn::tokenize {

char32_t byte_to_char(unsigned char b);
// The UTF-8 bytes of `text`, each shown as its byte-level character.
std::u32string to_byte_level(std::u32string_view text);

}  // namespace attn::tokenize
