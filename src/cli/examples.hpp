// The tutorials' worked examples: what each one runs, on which data, and what it must give.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "attn/matrix.hpp"
#include "attn/ops.hpp"

namespace attn::cli {

enum class ExampleOp { attend, softmax };

struct ExampleCase {
    std::string label;
    ExampleOp op = ExampleOp::attend;
    // attend: "x" (+ "wq", "wk", "wv") or "q", "k", "v"; softmax: "logits". Values are file
    // names inside the example's data folder.
    std::vector<std::pair<std::string, std::string>> inputs;
    std::string scale = "auto";  // as --scale takes it
    Causal causal = Causal::none;
    Normalization normalize = Normalization::softmax;
    // What is compared: computed name ("queries", ..., "context", "softmax") → expected file.
    std::vector<std::pair<std::string, std::string>> expect;
};

struct Example {
    std::string name, summary, source;
    std::string labels;  // file of token labels, or ""
    std::vector<ExampleCase> cases;
    std::string tutorial;  // what the tutorial printed, verbatim enough to compare by eye
};

const std::vector<Example>& examples();
const Example* find_example(const std::string& name);

// Contents of data/examples/NAME/FILE, parsed as a matrix.
Matrix example_matrix(const std::string& example, const std::string& file);
std::string example_file(const std::string& example, const std::string& file);

// Runs one case: every computed matrix by name (inputs included under their input names).
std::map<std::string, Matrix> run_case(const ExampleCase& c, const std::string& example);

// The equivalent command line, with paths as in the source tree.
std::string case_command(const ExampleCase& c, const std::string& example);

}  // namespace attn::cli
