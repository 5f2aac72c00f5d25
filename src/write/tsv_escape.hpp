// The escapes of text in a tsv field (attn's labelled tsv, tokenize --format tsv): tab, line
// feed, carriage return and backslash as \t, \n, \r and \\, so a field stays on its line and
// between its tabs; everything else as it is.
#pragma once
#include <string>

namespace attn::io {

inline void append_tsv_escaped(std::string& out, char c) {
    switch (c) {
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\\': out += "\\\\"; break;
        default: out += c;
    }
}

}  // namespace attn::io
