// Internal to src/read: read_mask's path for a text mask, straight into bits.
#pragma once
#include <optional>
#include <string_view>

#include "attn/io.hpp"
#include "attn/mask_bits.hpp"

namespace attn::io::detail {

// The bits of a text mask of rows, one per line, of plain numbers (parse_plain_number's),
// True or False (and -inf when rules.additive), separated as the text reader separates them
// (blanks, one ',' or ';' after a value); blank lines skipped. Read in bands of lines by all
// threads, with no float copy; a mapped text's pages are dropped as they are read. Nothing
// when the text holds anything else (comments, headers, brackets, other tokens, rows of
// different lengths, no row) or, for an additive mask that is not boolean, a value other than
// 0 and -inf: the text reader then reads it, with its rules and messages. `boolean`: the text
// holds True or False (it is then never additive); `negative`: some value is negative.
std::optional<MaskBits> parse_text_mask(std::string_view text, const MaskRules& rules, bool* negative, bool* boolean,
                                        bool mapped);

}  // namespace attn::io::detail
