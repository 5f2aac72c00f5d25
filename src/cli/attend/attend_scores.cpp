#include "cli/attend/attend_scores.hpp"

#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "cli/option_values.hpp"
#include "runtime/did_you_mean.hpp"

namespace attn::cli {

namespace {

ScoreFunction parse_score(const std::string& text) {
    for (ScoreFunction s : {ScoreFunction::dot, ScoreFunction::general, ScoreFunction::additive, ScoreFunction::cosine})
        if (text == score_name(s)) return s;
    throw UsageError("invalid --score '" + text + "': expected dot, general, additive or cosine" +
                     did_you_mean(text, option_names::score));
}

}  // namespace

std::string score_flag(Role role) {
    switch (role) {
        case Role::wa: return "--wa";
        case Role::wa_q: return "--wa-q";
        case Role::wa_k: return "--wa-k";
        case Role::va: return "--va";
        default: return "";
    }
}

void ScoreWeights::fill(AttentionSpec& spec) const {
    spec.score = score;
    spec.wa = wa.rank() ? &wa_view : nullptr;
    spec.wa_q = wa_q.rank() ? &wa_q_view : nullptr;
    spec.wa_k = wa_k.rank() ? &wa_k_view : nullptr;
    spec.va = va.rank() ? &va_view : nullptr;
}

ScoreWeights read_score_weights(const cxxopts::ParseResult& r, InputNames& names) {
    ScoreWeights w;
    w.score = parse_score(r["score"].as<std::string>());
    const std::string score = "--score " + std::string(score_name(w.score));
    struct Weight {
        const char* opt;
        ScoreFunction of;
        Tensor ScoreWeights::*tensor;
        TensorView ScoreWeights::*view;
        std::size_t max_dims;  // more than the weight takes: the library names the option's role
    };
    const Weight weights[] = {{"wa", ScoreFunction::general, &ScoreWeights::wa, &ScoreWeights::wa_view, 4},
                              {"wa-q", ScoreFunction::additive, &ScoreWeights::wa_q, &ScoreWeights::wa_q_view, 4},
                              {"wa-k", ScoreFunction::additive, &ScoreWeights::wa_k, &ScoreWeights::wa_k_view, 4},
                              {"va", ScoreFunction::additive, &ScoreWeights::va, &ScoreWeights::va_view, 4}};
    for (const Weight& x : weights) {
        const std::string flag = std::string("--") + x.opt;
        const std::string owner = std::string("--score ") + score_name(x.of);
        if (r.count(x.opt) && w.score != x.of)
            throw UsageError(flag + " is a weight of " + owner + ", not of " + score +
                             (w.score == ScoreFunction::dot && !r.count("score") ? " (the default): add " + owner
                                                                                 : ": drop " + flag));
        if (!r.count(x.opt) && w.score == x.of)
            throw UsageError(score + " needs " + flag + " FILE" +
                             (x.of == ScoreFunction::general ? " (W_a, d_q×d_k)"
                              : std::string(x.opt) == "va" ? " (v_a, h entries)"
                                                           : std::string(" (W_") + x.opt[3] + ", d_" + x.opt[3] + "×h)"));
        if (!r.count(x.opt)) continue;
        w.*x.tensor = io::read_tensor(names.claim(r[x.opt].as<std::string>(), flag), io::Finite::required, x.max_dims);
        w.*x.view = (w.*x.tensor).view();
    }
    return w;
}

}  // namespace attn::cli
