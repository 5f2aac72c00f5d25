#include "cli/attend/attend_options.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/problem.hpp"
#include "cli/common.hpp"
#include "cli/option_values.hpp"
#include "runtime/utf8.hpp"
#include "runtime/did_you_mean.hpp"

namespace attn::cli {

float parse_scale(const std::string& text, std::size_t d_k) {
    if (const std::optional<float> named = named_scale(text, d_k)) return *named;
    if (const std::string near = did_you_mean(text, {"auto", "none"}); !near.empty())
        throw UsageError("invalid --scale '" + io::printable_utf8(text, 40) + "': expected auto, none or a number" +
                         near);
    return parse_float32(text, "scale");
}

Causal parse_causal(const std::string& text) {
    if (text == "top-left") return Causal::top_left;
    if (text == "bottom-right") return Causal::bottom_right;
    throw UsageError("invalid --causal '" + text + "': expected top-left or bottom-right" +
                     did_you_mean(text, {"top-left", "bottom-right"}));
}

MaskedRowPolicy parse_masked_rows(const std::string& text) {
    if (text == "zero") return MaskedRowPolicy::zero;
    if (text == "nan") return MaskedRowPolicy::nan;
    if (text == "uniform") return MaskedRowPolicy::uniform;
    throw UsageError("invalid --masked-rows '" + text + "': expected zero, nan or uniform" +
                     did_you_mean(text, {"zero", "nan", "uniform"}));
}

Normalization parse_normalize(const std::string& text) {
    if (text == "softmax") return Normalization::softmax;
    if (text == "sum") return Normalization::sum;
    throw UsageError("invalid --normalize '" + text + "': expected softmax or sum" +
                     did_you_mean(text, {"softmax", "sum"}));
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

void report_negative_sum_rows(const TensorView& weights) {
    std::size_t count = 0;
    for (std::size_t s = 0; s < weights.slices(); ++s) {
        const MatrixView m = weights.slice(s);
        for (std::size_t i = 0; i < m.rows; ++i) {
            bool negative = false;
            for (std::size_t j = 0; j < m.cols && !negative; ++j) negative = m(i, j) < 0.0f;
            count += negative;
        }
    }
    if (count > 0)
        std::fprintf(stderr,
                     "attn: note: %zu %s negative entries after --normalize sum: not weights (softmax's are all "
                     "positive)\n",
                     count, count == 1 ? "row has" : "rows have");
}

}  // namespace attn::cli

namespace attn::cli {

namespace {

const char* const show_names[] = {"queries", "keys",    "values", "scores",   "scaled", "capped",
                                  "weights", "weights-mean", "context", "output", "variance", "lse", "kv-error"};

// A whole non-negative integer by the rule of every integer option (cli/option_values.hpp),
// or nothing.
bool parse_count(const std::string& text, std::size_t& value) {
    const std::optional<long long> v = decimal_integer(text, false);
    if (v) value = std::size_t(*v);
    return v.has_value();
}

}  // namespace

std::string show_names_text() {
    std::string valid;
    for (const char* n : show_names) valid += std::string(valid.empty() ? "" : ", ") + n;
    return valid;
}

Show parse_show(const std::string& list) {
    Show s;
    std::stringstream in(list);
    std::string name;
    while (std::getline(in, name, ',')) {
        if (name.empty()) throw UsageError("invalid --show '" + list + "': an empty item");
        bool* flag = name == "queries"        ? &s.queries
                     : name == "keys"         ? &s.keys
                     : name == "values"       ? &s.values
                     : name == "scores"       ? &s.scores
                     : name == "scaled"       ? &s.scaled
                     : name == "capped"       ? &s.capped
                     : name == "weights"      ? &s.weights
                     : name == "weights-mean" ? &s.weights_mean
                     : name == "context"      ? &s.context
                     : name == "output"       ? &s.output
                     : name == "variance"     ? &s.variance
                     : name == "lse"          ? &s.lse
                     : name == "kv-error"     ? &s.kv_error
                                              : nullptr;
        if (!flag)
            throw UsageError("invalid --show item '" + name + "': expected a comma-separated list of " +
                             show_names_text() +
                             did_you_mean(name, std::vector<std::string>(std::begin(show_names), std::end(show_names))));
        if (!*flag) s.order.push_back(name);
        *flag = true;
    }
    if (s.order.empty() || list.back() == ',') throw UsageError("invalid --show '" + list + "': an empty item");
    return s;
}

float parse_softcap(const std::string& text, bool zero_is_none) {
    const float c = parse_float32(text, "softcap");
    if (c == 0.0f && zero_is_none) return c;
    if (!(c >= std::numeric_limits<float>::min()))  // 1/C must be finite
        throw UsageError("invalid --softcap '" + text + "': " + (c == 0.0f ? "0 is no softcap; " : "") +
                         "expected a positive number C of at least 1.2e-38 (scores become C·tanh(x/C))" +
                         (zero_is_none ? ", or 0 for none" : ""));
    return c;
}

Window parse_window(const std::string& text) {
    const auto colon = text.find(':');
    const std::string left = text.substr(0, colon), right = colon == std::string::npos ? "" : text.substr(colon + 1);
    Window w;
    // An empty side is unbounded (L, L: and :R), as the masking line prints a window back.
    if ((!left.empty() && !parse_count(left, w.left)) || (!right.empty() && !parse_count(right, w.right)) ||
        (left.empty() && right.empty()))
        throw UsageError("invalid --window '" + text + "': expected L or L:R, whole numbers of keys left and right of "
                         "the query's position (L or L: alone: unbounded right; :R: unbounded left)");
    return w;
}

std::vector<long long> parse_causal_offsets(const std::string& text) {
    std::vector<long long> offsets;
    std::size_t at = 0;
    while (true) {
        const std::size_t comma = text.find(',', at);
        const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        const bool negative = !item.empty() && item[0] == '-';
        std::size_t n = 0;
        if (!parse_count(negative ? item.substr(1) : item, n) || n > std::size_t(max_causal_offset))
            throw UsageError("invalid --causal-offset '" + text + "': expected N or N,N,... (one per batch item), "
                             "whole numbers of keys, negative allowed, at most 2^48 in magnitude");
        offsets.push_back(negative ? -(long long)n : (long long)n);
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return offsets;
}

bool parse_softmax_precision(const std::string& text) {
    if (text == "f32" || text == "float32") return false;
    if (text == "f64" || text == "float64") return true;
    throw UsageError("invalid --softmax-precision '" + text + "': expected f32 or f64" +
                     did_you_mean(text, option_names::softmax_precision));
}

float parse_rope_theta(const std::string& text) {
    const float theta = parse_float32(text, "rope");
    if (!(theta > 0.0f))
        throw UsageError("invalid --rope '" + text + "': expected the positive base THETA of the rotary angles "
                         "(rope_theta: 10000 for Llama 2, 500000 for Llama 3)");
    return theta;
}

RopeStyle parse_rope_style(const std::string& text) {
    if (text == "half") return RopeStyle::half;
    if (text == "interleaved") return RopeStyle::interleaved;
    throw UsageError("invalid --rope-style '" + text + "': expected half (HF Llama's rotate_half) or interleaved "
                     "(GPT-J, RoFormer)" + did_you_mean(text, option_names::rope_style));
}

std::size_t parse_rope_dims(const std::string& text, std::size_t d_k) {
    std::size_t n = 0;
    if (!parse_count(text, n) || n == 0 || n % 2)
        throw UsageError("invalid --rope-dims '" + text + "': expected an even number of dims (RoPE rotates pairs), "
                         "at least 2");
    if (n > d_k)
        throw UsageError("invalid --rope-dims '" + text + "': each head has only d_k = " + std::to_string(d_k) +
                         " dims");
    return n;
}

std::size_t rope_dims(const std::optional<std::string>& given, std::size_t d_k) {
    if (given) return parse_rope_dims(*given, d_k);
    if (d_k % 2)
        throw UsageError("--rope rotates pairs of dims, and d_k = " + std::to_string(d_k) + " is odd: " +
                         (d_k == 1 ? std::string("a head of one dim has no pair to rotate")
                                   : "choose the dims rotated with --rope-dims N (even, at most " +
                                         std::to_string(d_k - 1) + ")"));
    return 0;
}

float parse_alibi_max_bias(const std::string& text) {
    const float b = parse_float32(text, "alibi-max-bias");
    if (!(b > 0.0f))
        throw UsageError("invalid --alibi-max-bias '" + text + "': expected a positive number B (BLOOM's and ggml's "
                         "default: 8)");
    return b;
}

Range parse_range(const std::string& text, const std::string& option, bool allow_empty) {
    const auto colon = text.find(':');
    Range r;
    if (colon == std::string::npos || !parse_count(text.substr(0, colon), r.begin) ||
        !parse_count(text.substr(colon + 1), r.end))
        throw UsageError("invalid " + option + " '" + text + "': expected A:B, the indices A to B-1 (e.g. 0:128)");
    if (allow_empty && r.begin > r.end)
        throw UsageError("invalid " + option + " '" + text + "': A is past B (A:B is keys A to B-1; A:A is none)");
    if (!allow_empty && r.begin >= r.end)
        throw UsageError("invalid " + option + " '" + text + "': the range A:B is empty (B must be greater than A)");
    return r;
}

std::vector<std::size_t> parse_lengths(const std::string& text) {
    std::vector<std::size_t> lengths;
    // A list when it is digits and commas only; otherwise the name of a file.
    if (!text.empty() && text.find_first_not_of("0123456789,") == std::string::npos) {
        std::stringstream in(text);
        std::string item;
        while (std::getline(in, item, ',')) {
            std::size_t n = 0;
            if (item.empty()) throw UsageError("invalid --lengths '" + text + "': an empty item");
            if (!parse_count(item, n))
                throw UsageError("invalid --lengths '" + text + "': " + item + " is not a length (too large)");
            lengths.push_back(n);
        }
        if (text.back() == ',') throw UsageError("invalid --lengths '" + text + "': an empty item");
        return lengths;
    }
    // Numbers that are not whole (-1, 2.5) and name no file: a wrong list, not a missing file.
    std::error_code no_file;
    if (text != "-" && text.find_first_not_of("0123456789,-+.eE ") == std::string::npos &&
        !std::filesystem::exists(text, no_file))
        throw UsageError("invalid --lengths '" + text + "': expected whole numbers of keys, e.g. 5,3 (or a FILE)");
    const std::size_t colon = text.find(':');
    if (colon != std::string::npos && colon > 0 && !std::filesystem::exists(text, no_file) &&
        std::filesystem::exists(text.substr(0, colon), no_file))
        throw UsageError("--lengths " + text + ": --lengths reads whole numbers from a FILE (text or .npy), not one "
                         "tensor of a file (FILE:NAME)");
    if (text != "-" && !text.starts_with("-:") && !std::filesystem::exists(text, no_file))
        throw InputError(text + ": No such file (--lengths takes whole numbers of keys, e.g. 5,3, or a FILE)");
    const std::string content = io::read_text_file(text);
    if (content.starts_with("\x93NUMPY")) {  // an .npy vector (or one row) of whole numbers
        const Tensor t = io::parse_npy_tensor(content, text, io::Finite::required, 2);
        if (t.rank() == 2 && t.rows() != 1 && t.cols() != 1)
            throw InputError(text + ": lengths are a vector, one per batch item; got shape " + t.shape().text());
        for (std::size_t k = 0; k < t.rows() * t.cols(); ++k) {
            const float v = t.rank() == 2 && t.cols() == 1 ? t.slice_data(0)[k * t.row_stride()] : t.slice_data(0)[k];
            if (!(v >= 0) || v != std::floor(v) || v > 1e9f) {
                char shown[32];
                std::snprintf(shown, sizeof shown, "%g", double(v));
                throw InputError(text + ": entry " + std::to_string(k) + " is " + shown +
                                 ", not a length (a whole number of keys)");
            }
            lengths.push_back(std::size_t(v));
        }
        return lengths;
    }
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < content.size();) {
        const char c = content[i];
        if (c == '#') {
            while (i < content.size() && content[i] != '\n') ++i;
        } else if (c == '\n') {
            ++line, col = 1, ++i;
        } else if (c == ' ' || c == '\t' || c == ',' || c == '\r') {
            ++col, ++i;
        } else {
            std::size_t j = i;
            while (j < content.size() && std::string_view(" \t,\r\n#").find(content[j]) == std::string_view::npos) ++j;
            const std::string token = content.substr(i, j - i);
            std::size_t n = 0;
            if (!parse_count(token, n))
                throw InputError(text + ":" + std::to_string(line) + ":" + std::to_string(col) +
                                 ": expected a length (a whole number of keys), found '" +
                                 io::printable_utf8(std::string_view(token).substr(0, 40)) + "'");
            lengths.push_back(n);
            col += j - i, i = j;
        }
    }
    if (lengths.empty()) throw InputError(text + ": no lengths (one whole number of keys per batch item)");
    return lengths;
}

}  // namespace attn::cli
