#include "cli/attend_options.hpp"

#include <cmath>
#include <cstdio>

#include "attn/error.hpp"
#include "cli/common.hpp"

namespace attn::cli {

float parse_scale(const std::string& text, std::size_t d_k) {
    if (text == "auto") return float(1.0 / std::sqrt(double(d_k)));
    if (text == "none") return 1.0f;
    return parse_float32(text, "scale");
}

Causal parse_causal(const std::string& text) {
    if (text == "top-left") return Causal::top_left;
    if (text == "bottom-right") return Causal::bottom_right;
    throw UsageError("invalid --causal '" + text + "': expected top-left or bottom-right");
}

MaskedRowPolicy parse_masked_rows(const std::string& text) {
    if (text == "zero") return MaskedRowPolicy::zero;
    if (text == "nan") return MaskedRowPolicy::nan;
    if (text == "uniform") return MaskedRowPolicy::uniform;
    throw UsageError("invalid --masked-rows '" + text + "': expected zero, nan or uniform");
}

Normalization parse_normalize(const std::string& text) {
    if (text == "softmax") return Normalization::softmax;
    if (text == "sum") return Normalization::sum;
    throw UsageError("invalid --normalize '" + text + "': expected softmax or sum");
}

const char* causal_name(Causal c) {
    return c == Causal::top_left ? "top-left" : c == Causal::bottom_right ? "bottom-right" : "none";
}

const char* masked_rows_name(MaskedRowPolicy p) {
    return p == MaskedRowPolicy::zero ? "zero" : p == MaskedRowPolicy::nan ? "nan" : "uniform";
}

void report_masked_rows(std::size_t count, MaskedRowPolicy policy) {
    if (count == 0) return;
    const char* what = policy == MaskedRowPolicy::zero  ? "zero weights and a zero context"
                       : policy == MaskedRowPolicy::nan ? "NaN weights and context"
                                                        : "uniform weights (context = mean of V)";
    std::fprintf(stderr, "attn: note: %zu query row%s had every key masked (--masked-rows %s: %s)\n", count,
                 count == 1 ? "" : "s", masked_rows_name(policy), what);
}

}  // namespace attn::cli
