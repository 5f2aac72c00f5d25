// Parsing of the attention options shared by `attn attend` and `attn softmax`.
#pragma once
#include <string>

#include "attn/ops.hpp"

namespace attn::cli {

// "auto" → 1/sqrt(d_k), "none" → 1, or a finite number. UsageError otherwise.
float parse_scale(const std::string& text, std::size_t d_k);
Causal parse_causal(const std::string& text);  // "top-left" | "bottom-right"
MaskedRowPolicy parse_masked_rows(const std::string& text);
Normalization parse_normalize(const std::string& text);
const char* causal_name(Causal c);
const char* masked_rows_name(MaskedRowPolicy p);

// Tells stderr how many rows were fully masked and what the policy gave them (nothing when 0).
void report_masked_rows(std::size_t count, MaskedRowPolicy policy);

}  // namespace attn::cli
