// The command line of a worked example's case (cli/example/example_commands.hpp).
#include "cli/example/example_commands.hpp"

#include <map>
#include <string>
#include <utility>

namespace attn::cli {

namespace {

const char* input_flag(const std::string& name) {
    static const std::pair<const char*, const char*> flags[] = {
        {"x", "-x"},    {"q", "-q"},     {"k", "-k"},     {"v", "-v"},     {"wq", "--wq"},
        {"wk", "--wk"}, {"wv", "--wv"},  {"bq", "--bq"},  {"bk", "--bk"},  {"bv", "--bv"},
        {"wo", "--wo"}, {"bo", "--bo"},  {"logits", ""},  {"in_proj_weight", "--in-proj"},
        {"in_proj_bias", "--in-proj-bias"}, {"out_proj_weight", "--out-proj"}, {"out_proj_bias", "--out-proj-bias"},
        {"wa", "--wa"}, {"wa_q", "--wa-q"}, {"wa_k", "--wa-k"}, {"va", "--va"}};
    for (const auto& [n, f] : flags)
        if (name == n) return f;
    return "";
}

}  // namespace

std::string case_command(const ExampleCase& c, const std::string& example, const CommandOutput& out) {
    static const char* const format_names[] = {"pretty", "csv", "tsv", "json", "npy"};
    const bool heatmap = c.op == ExampleOp::attend && c.heatmap && out.format.value_or(io::Format::pretty) == io::Format::pretty;
    std::string tail;
    if (out.format || heatmap) tail += std::string(" --format ") + format_names[int(out.format.value_or(io::Format::pretty))];
    if (out.digits >= 0) tail += " --digits " + std::to_string(out.digits);
    if (c.op == ExampleOp::variance) return "attn variance --dk 512 --rows 32 --batch 32 --sigma 1 --seed 92" + tail;
    std::string cmd = c.op == ExampleOp::softmax ? "attn softmax" : "attn attend";
    std::string prefix;  // commands that produce generated inputs
    for (const GeneratedInput& g : c.generated) {
        std::string shape;
        for (std::size_t d : g.shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
        // The first matrix of the draw is the comment line plus its rows.
        prefix += "attn random --seed " + std::to_string(g.seed) + " --shape " + shape + " --format csv | head -n " +
                  std::to_string(g.shape[g.shape.size() - 2] + 1) + " > " + g.name + ".csv\n$ ";
        cmd += " " + std::string(input_flag(g.name)) + " " + g.name + ".csv";
    }
    for (const auto& [name, file] : c.inputs) {
        const std::string flag = input_flag(name);
        cmd += (flag[0] ? " " + flag + " " : " ") + file;
    }
    if (c.heads) cmd += " --heads " + std::to_string(c.heads);
    if (c.kv_heads) cmd += " --kv-heads " + std::to_string(c.kv_heads);
    if (c.op == ExampleOp::softmax) {
        if (c.scale != "none") cmd += " --scale " + c.scale;
    } else if (c.scale != "auto") {
        cmd += " --scale " + c.scale;
    }
    if (c.score != ScoreFunction::dot) cmd += std::string(" --score ") + score_name(c.score);
    for (std::size_t b = 0; b < c.lengths.size(); ++b) cmd += (b ? "," : " --lengths ") + std::to_string(c.lengths[b]);
    if (c.causal != Causal::none) cmd += c.causal == Causal::bottom_right ? " --causal=bottom-right" : " --causal";
    if (c.rope != 0.0f) cmd += " --rope " + std::to_string(int(c.rope));
    if (c.window.bounded()) {
        const auto side = [](std::size_t n) { return n == unbounded ? std::string() : std::to_string(n); };
        cmd += " --window " + side(c.window.left) + (c.window.right == unbounded ? "" : ":" + side(c.window.right));
    }
    if (c.normalize == Normalization::sum) cmd += " --normalize sum";
    if (heatmap) {
        const Example* e = find_example(example);
        if (e && !e->labels.empty()) cmd += " --labels " + e->labels;
        cmd += " --heatmap";
    }
    if (c.op == ExampleOp::attend) {
        std::string show;
        for (const auto& [name, file] : c.expect)
            if (name != "v") show += (show.empty() ? "" : ",") + name;
        cmd += " --show " + show;
    }
    return prefix + cmd + tail;
}

}  // namespace attn::cli
