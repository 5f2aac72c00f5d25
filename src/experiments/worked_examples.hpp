// The tutorials' worked examples: what each one runs, on which data, and what it must give.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/io.hpp"
#include "attn/matrix.hpp"
#include "attn/ops.hpp"
#include "attn/problem.hpp"
#include "attn/tensor.hpp"

namespace attn::worked_examples {

enum class ExampleOp {
    attend,
    softmax,
    variance,  // the variance experiment: 1x2 [unscaled, scaled] score variance
};

// An input drawn with PyTorch's generator instead of read from a file: the first matrix
// (index 0 of every leading dimension) of torch.manual_seed(seed); torch.randn(shape).
struct GeneratedInput {
    std::string name;
    std::uint64_t seed;
    std::vector<std::size_t> shape;
};

struct ExampleCase {
    using Files = std::vector<std::pair<std::string, std::string>>;
    ExampleCase(std::string label_, ExampleOp op_, Files inputs_, std::string scale_, Causal causal_,
                Normalization normalize_, Files expect_, std::vector<GeneratedInput> generated_ = {},
                bool heatmap_ = false, std::size_t heads_ = 0, std::size_t kv_heads_ = 0)
        : label(std::move(label_)), op(op_), inputs(std::move(inputs_)), scale(std::move(scale_)), causal(causal_),
          normalize(normalize_), expect(std::move(expect_)), generated(std::move(generated_)), heatmap(heatmap_),
          heads(heads_), kv_heads(kv_heads_) {}

    std::string label;
    ExampleOp op;
    // attend: "x" (+ "wq", "wk", "wv", "bq", "bk", "bv", "wo", "bo", or nn.MultiheadAttention's
    // "in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias") or "q", "k", "v";
    // softmax: "logits". Values are file names inside the example's data folder.
    Files inputs;
    std::string scale;  // as --scale takes it
    Causal causal;
    Normalization normalize;
    // What is compared: computed name ("queries", ..., "context", "weights-mean", "output",
    // "softmax") → expected file.
    Files expect;
    std::vector<GeneratedInput> generated;
    bool heatmap;  // draw the weights when showing the example
    // Multi-head attention (--heads, --kv-heads; 0 = single-head): the per-head results carry
    // a head dimension.
    std::size_t heads, kv_heads;
    // A score function other than dot (inputs "wa", or "wa_q", "wa_k", "va"): the batched
    // engine on 4-D q, k, v, with these key lengths per batch item (--lengths; empty = none).
    ScoreFunction score = ScoreFunction::dot;
    std::vector<std::size_t> lengths;
    float rope = 0.0f;  // RoPE's theta (--rope; the engine rotates Q and K); 0: none
    Window window;      // --window (attn/masking.hpp); unbounded: none
};

struct Example {
    std::string name, summary, source;
    std::string labels;  // file of token labels, or ""
    std::vector<ExampleCase> cases;
    std::string tutorial;  // what the tutorial printed, verbatim enough to compare by eye
};

const std::vector<Example>& examples();
const Example* find_example(const std::string& name);

// Contents of data/examples/NAME/FILE, parsed as a tensor (2-D for matrices).
Tensor example_tensor(const std::string& example, const std::string& file);
std::string example_file(const std::string& example, const std::string& file);
// The names of every file of an example (its inputs, labels and PyTorch's results), in the
// order they are embedded.
std::vector<std::string> example_file_names(const std::string& example);

// Runs one case: every computed tensor by name (inputs included under their input names).
std::map<std::string, Tensor> run_case(const ExampleCase& c, const std::string& example);

}  // namespace attn::worked_examples
