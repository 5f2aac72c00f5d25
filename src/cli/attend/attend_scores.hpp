// `attn attend --score dot|general|additive|cosine` and the score weights (--wa; --wa-q,
// --wa-k, --va): which options each score takes, read as tensors. The shapes are checked by
// the library's resolve_attention (attn/problem.hpp), whose errors name the role; the
// command line maps the role to these flags (score_flag).
#pragma once
#include <string>

#include <cxxopts.hpp>

#include "attn/problem.hpp"
#include "attn/tensor.hpp"
#include "cli/common.hpp"

namespace attn::cli {

struct ScoreWeights {
    ScoreFunction score = ScoreFunction::dot;
    Tensor wa, wa_q, wa_k, va;  // rank 0: not given
    TensorView wa_view, wa_q_view, wa_k_view, va_view;
    // The spec's score fields pointing at the views above (this object must outlive spec).
    void fill(AttentionSpec& spec) const;
};

// --score and its weights; UsageError for a weight the score does not take or one it lacks.
ScoreWeights read_score_weights(const cxxopts::ParseResult& r, InputNames& names);

// The flag of a score weight's role (Role::wa → "--wa", …); empty for other roles.
std::string score_flag(Role role);

}  // namespace attn::cli
