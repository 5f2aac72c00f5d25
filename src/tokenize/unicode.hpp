// Internal to src/tokenize: the Unicode the tokenizers need, from the generated tables
// (unicode_data.cpp): UTF-8 to code points and back, general categories, the normalization
// forms (UAX #15), lower-casing as JavaScript's String.prototype.toLowerCase (full mappings
// and Final_Sigma), and the white-space classes of Unicode and of JavaScript's \s.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/utf8.hpp"

namespace attn::unicode {

// The general categories, Cn (unassigned) first.
enum class Category : std::uint8_t {
    Cn, Lu, Ll, Lt, Lm, Lo, Mn, Mc, Me, Nd, Nl, No, Pc, Pd, Ps, Pe, Pi, Pf, Po, Sm, Sc, Sk, So,
    Zs, Zl, Zp, Cc, Cf, Cs, Co
};

const char* version();  // of the tables: "15.0.0"

Category category(char32_t c);
inline bool is_letter(char32_t c) { auto k = category(c); return k >= Category::Lu && k <= Category::Lo; }
inline bool is_mark(char32_t c) { auto k = category(c); return k >= Category::Mn && k <= Category::Me; }
inline bool is_number(char32_t c) { auto k = category(c); return k >= Category::Nd && k <= Category::No; }
inline bool is_punctuation(char32_t c) { auto k = category(c); return k >= Category::Pc && k <= Category::Po; }
bool is_white_space(char32_t c);  // the White_Space property
bool is_alphabetic(char32_t c);   // the Alphabetic property (letters, Nl, and Other_Alphabetic: Ⓐ, many marks)
bool is_join_control(char32_t c); // the Join_Control property (ZWNJ, ZWJ)
// ECMAScript's \s and String.prototype.trim: WhiteSpace (Zs, TAB, VT, FF, U+FEFF) and
// LineTerminator (LF, CR, U+2028, U+2029). Unlike White_Space it has U+FEFF and lacks U+0085.
bool is_js_space(char32_t c);
int combining_class(char32_t c);

// UTF-8 ↔ code points. decode_utf8 throws InputError naming the byte offset of invalid UTF-8.
std::u32string decode_utf8(std::string_view text);
std::string encode_utf8(std::u32string_view text);
using io::append_utf8;  // runtime/utf8.hpp

enum class Form { nfc, nfd, nfkc, nfkd };
std::u32string normalize(std::u32string_view text, Form form);

// String.prototype.toLowerCase: the full lower-case mappings, Σ → ς at the end of a word.
std::u32string to_lower(std::u32string_view text);

}  // namespace attn::unicode
