// Whether a label of attn's labelled csv/tsv holds only numbers (or nothing): such a label is
// no sign of labels, and a file whose labels are all like it is not read as labelled (so that
// plain numbers with a mistake are never taken for labels). One definition for the reader
// (read/text_sections.cpp) and the writer, which marks such labels (write/printer.cpp) so that
// what attn writes reads back; here, below both (they may not include each other).
#pragma once
#include <charconv>
#include <string_view>

namespace attn::io::detail {

inline bool label_reads_as_numbers(std::string_view f) {
    const auto separates = [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == ',' || c == ';';
    };
    std::size_t i = 0;
    for (;;) {
        while (i < f.size() && separates(f[i])) ++i;
        if (i == f.size()) return true;
        std::size_t end = i;
        while (end < f.size() && !separates(f[end])) ++end;
        double d;
        if (std::from_chars(f.data() + i, f.data() + end, d).ptr != f.data() + end) return false;
        i = end;
    }
}

// Whether a label begins the way a number does ([+-]?[.]?digit after blanks: "2nd", "0x10",
// "1.2.3"): no sign of labels either (a mistyped number looks so); the writer marks such labels
// as it marks numbers.
inline bool label_begins_as_number(std::string_view f) {
    std::size_t i = f.find_first_not_of(" \t\r\v\f");
    const auto digit = [&](std::size_t k) { return k < f.size() && f[k] >= '0' && f[k] <= '9'; };
    if (i == std::string_view::npos) return false;
    if (f[i] == '+' || f[i] == '-') ++i;
    if (i < f.size() && f[i] == '.') ++i;
    return digit(i);
}

}  // namespace attn::io::detail
