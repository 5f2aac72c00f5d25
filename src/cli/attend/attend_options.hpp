// Parsing of the attention options shared by `attn attend` and `attn softmax`, and of the
// values only `attn attend` takes (--show, --query-rows, --batch-items, --lengths).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attn/ops.hpp"
#include "attn/problem.hpp"

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
// Tells stderr how many rows of weights normalised by --normalize sum hold a negative entry (no
// weights then: softmax's are all positive; nothing when none does).
void report_negative_sum_rows(const TensorView& weights);

// What `attn attend --show` prints, in the order the user listed it.
struct Show {
    bool queries = false, keys = false, values = false, scores = false, scaled = false, weights = false,
         weights_mean = false, context = false, output = false, variance = false, capped = false, lse = false,
         kv_error = false;
    std::vector<std::string> order;
};
// "weights,context": UsageError naming the valid names for an unknown or empty item.
Show parse_show(const std::string& list);
// The names --show takes, comma-separated (for messages and --help).
std::string show_names_text();

// "A:B" → [A, B) for --query-rows / --batch-items (A < B). UsageError naming `option`.
struct Range {
    std::size_t begin = 0, end = 0;
};

// The attention options of `attn attend` (the query rows and batch items computed: [0, Tq)
// and [0, B) when end == 0).
struct AttendSettings {
    float scale = 1;
    float softcap = 0;  // 0: none
    Causal causal = Causal::none;
    Window window;
    Rope rope;         // theta 0: none
    float alibi = 0;   // ALiBi's maximum bias; 0: none
    Normalization normalize = Normalization::softmax;
    MaskedRowPolicy masked_rows = MaskedRowPolicy::zero;
    Range rows{0, 0};
    Range items{0, 0};
    std::optional<Range> keys;  // --key-rows: the key shard attended to (may be empty)
    std::vector<long long> offsets;  // --causal-offset or the cache's length (AttentionSpec::offsets)
    bool softmax_f64 = false;        // --softmax-precision f64
};
// A:B with A < B (with allow_empty, A <= B). UsageError naming `option` otherwise.
Range parse_range(const std::string& text, const std::string& option, bool allow_empty = false);

// --softcap C: 0 (none, ONNX's default; refused unless zero_is_none) or a positive finite
// number. UsageError otherwise.
float parse_softcap(const std::string& text, bool zero_is_none = true);
// --window L[:R]: whole numbers of keys left and right of the query's position; R omitted
// (or L empty) is unbounded. UsageError otherwise.
Window parse_window(const std::string& text);
// --causal-offset N or N,N,...: whole numbers, may be negative, at most 2^48 in magnitude.
std::vector<long long> parse_causal_offsets(const std::string& text);
// --softmax-precision f32|f64: true for f64.
bool parse_softmax_precision(const std::string& text);

// --rope THETA (a positive finite base), --rope-style half|interleaved, --rope-dims N (even, at
// least 2, at most d_k), --alibi-max-bias B (positive, finite). UsageError naming the option.
float parse_rope_theta(const std::string& text);
RopeStyle parse_rope_style(const std::string& text);
std::size_t parse_rope_dims(const std::string& text, std::size_t d_k);
// The dims RoPE rotates: --rope-dims as `given`, else 0 (all d_k), which needs an even d_k.
std::size_t rope_dims(const std::optional<std::string>& given, std::size_t d_k);
float parse_alibi_max_bias(const std::string& text);

// --lengths: a comma-separated list of non-negative integers ("5,3"), or else a file of
// integers separated by blanks, commas or newlines ("#" comments). Errors name --lengths.
std::vector<std::size_t> parse_lengths(const std::string& text);

}  // namespace attn::cli
