// Internal to src/read: a cursor over a file header (npy's Python dict literal, safetensors'
// JSON), with the scanning steps and error style both header parsers share.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "attn/error.hpp"
#include "runtime/utf8.hpp"

namespace attn::io::detail {

// At most `max` characters of s, control characters and bytes that are not UTF-8 as '?':
// names and dtypes shown in messages (a tensor named in UTF-8 is shown as it is).
inline std::string printable(std::string_view s, std::size_t max = 40) { return printable_utf8(s, max); }

class HeaderCursor {
protected:
    // byte_offset: where the header starts in the file, for positions in messages (none when
    // unset: npy headers are short enough to read whole).
    HeaderCursor(std::string_view text, const std::string& source, std::optional<std::size_t> byte_offset = {})
        : s_(text), source_(source), byte_offset_(byte_offset) {}

    [[noreturn]] void fail(const std::string& m) const { throw InputError(source_ + ": " + m); }
    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    void skip() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    // " at byte N" for messages when the header's place in the file is known.
    std::string at_byte() const { return byte_offset_ ? " at byte " + std::to_string(i_ + *byte_offset_) : ""; }
    void expect(char c) {
        if (peek() != c) fail(std::string("malformed header: expected '") + c + "'" + at_byte());
        ++i_;
    }

    std::string_view s_;
    const std::string& source_;
    std::size_t i_ = 0;

private:
    std::optional<std::size_t> byte_offset_;
};

}  // namespace attn::io::detail
