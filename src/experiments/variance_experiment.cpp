// The variance experiment (include/attn/variance_experiment.hpp).
#include "attn/variance_experiment.hpp"

#include <algorithm>
#include <cmath>

#include "attn/matrix.hpp"
#include "attn/tensor.hpp"
#include "attn/ops.hpp"

namespace attn {

namespace {

// Two passes, double accumulators.
double population_variance(const std::vector<float>& v) {
    if (v.empty()) return 0;
    double sum = 0;
    for (float x : v) sum += x;
    const double mean = sum / double(v.size());
    double ss = 0;
    for (float x : v) ss += (double(x) - mean) * (double(x) - mean);
    return ss / double(v.size());
}

}  // namespace

double softmax_jacobian_norm(const double* p, std::size_t len) {
    // ‖J‖² = Σ_i (p_i − p_i²)² + Σ_{i≠j} p_i² p_j² = Σp² − 2Σp³ + (Σp²)².
    double s2 = 0, s3 = 0;
    for (std::size_t i = 0; i < len; ++i) {
        s2 += p[i] * p[i];
        s3 += p[i] * p[i] * p[i];
    }
    return std::sqrt(std::max(0.0, s2 - 2 * s3 + s2 * s2));
}

SoftmaxStats softmax_stats(const float* scores, std::size_t count, std::size_t len) {
    SoftmaxStats st;
    if (count == 0 || len == 0) return st;
    std::vector<double> p(len);
    std::size_t saturated = 0, tiny = 0;
    for (std::size_t r = 0; r < count; ++r) {
        const float* s = scores + r * len;
        const double mx = *std::max_element(s, s + len);
        double sum = 0;
        for (std::size_t j = 0; j < len; ++j) sum += p[j] = std::exp(double(s[j]) - mx);
        double pmax = 0, entropy = 0;
        for (std::size_t j = 0; j < len; ++j) {
            p[j] /= sum;
            pmax = std::max(pmax, p[j]);
            if (p[j] > 0) entropy -= p[j] * std::log(p[j]);
            tiny += p[j] < 1e-6;
        }
        saturated += pmax >= 0.99;
        st.max_weight_mean += pmax;
        st.entropy_mean += entropy;
        st.jacobian_norm_mean += softmax_jacobian_norm(p.data(), len);
    }
    st.max_weight_mean /= double(count);
    st.entropy_mean /= double(count);
    st.jacobian_norm_mean /= double(count);
    st.saturated_fraction = double(saturated) / double(count);
    st.tiny_fraction = double(tiny) / (double(count) * double(len));
    return st;
}

VarianceResult variance_of_scores(const std::vector<float>& Q, const std::vector<float>& K, std::size_t batch,
                                  std::size_t rows, std::size_t d_k, double sigma) {
    std::vector<float> scores(batch * rows * rows), scaled(scores.size());
    const float root = float(std::sqrt(double(d_k)));
    // Q_b and K_b are slices of views over the draws: no copies.
    const TensorView q = contiguous_view(Q.data(), Shape{batch, rows, d_k});
    const TensorView k = contiguous_view(K.data(), Shape{batch, rows, d_k});
    for (std::size_t b = 0; b < batch; ++b)
        matmul_into(q.slice(b), k.slice(b), /*transpose_b=*/true, scores.data() + b * rows * rows, rows);
    for (std::size_t i = 0; i < scores.size(); ++i) scaled[i] = scores[i] / root;  // float32, as scores / math.sqrt(d_k) in torch
    VarianceResult r;
    r.d_k = d_k;
    r.unscaled_var = population_variance(scores);
    r.scaled_var = population_variance(scaled);
    const double s4 = sigma * sigma * sigma * sigma;
    r.theory_unscaled_var = double(d_k) * s4;
    r.theory_scaled_var = s4;
    r.unscaled = softmax_stats(scores.data(), batch * rows, rows);
    r.scaled = softmax_stats(scaled.data(), batch * rows, rows);
    return r;
}

std::vector<VarianceResult> run_variance_experiment(const VarianceExperiment& e) {
    std::vector<VarianceResult> out;
    const float sigma = float(e.sigma);
    for (std::size_t d_k : e.d_ks) {
        TorchGenerator gen(e.seed, e.kernel);
        std::vector<float> Q = gen.randn({e.batch, e.rows, d_k});
        std::vector<float> K = gen.randn({e.batch, e.rows, d_k});
        for (float& x : Q) x *= sigma;  // torch.randn(...) * sigma, in float32
        for (float& x : K) x *= sigma;
        out.push_back(variance_of_scores(Q, K, e.batch, e.rows, d_k, e.sigma));
    }
    return out;
}

}  // namespace attn
