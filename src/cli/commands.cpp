// The table of subcommands: names, one-line summaries, usage lines, the order of their
// option groups, value choices for the completions and the EXAMPLES of their help pages.
// The options themselves are declared with cxxopts next to the code that reads them.
#include "cli/commands.hpp"

#include "attn/runtime.hpp"
#include "cli/attend/attend_options.hpp"
#include "cli/option_values.hpp"
#include "experiments/worked_examples.hpp"

namespace attn::cli {

// The worked examples (experiments/worked_examples.hpp).
using namespace attn::worked_examples;

namespace {

std::vector<std::string> split_list(const std::string& text) {  // "a, b, c" → {a, b, c}
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = text.find(", ", at);
        out.push_back(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
        if (comma == std::string::npos) break;
        at = comma + 2;
    }
    return out;
}

std::vector<std::string> example_names() {
    std::vector<std::string> names;
    for (const Example& e : examples()) names.push_back(e.name);
    return names;
}

// auto and the arch table's names (src/arch/arches.def).
std::vector<std::string> arch_values() {
    std::vector<std::string> values{"auto"};
    for (Arch a : all_arches()) values.push_back(arch_name(a));
    return values;
}

const ValueChoices arch_choice{"arch", arch_values()};
const ValueChoices torch_kernel_choice{"torch-kernel", {"avx2", "scalar"}};
const ValueChoices format_choice{"format", io::format_names()};
const ValueChoices text_format_choice{"format", {"pretty", "csv", "tsv", "json"}};
const ValueChoices causal_choice{"causal", {"top-left", "bottom-right"}};
const ValueChoices masked_rows_choice{"masked-rows", {"zero", "nan", "uniform"}};
const ValueChoices normalize_choice{"normalize", {"softmax", "sum"}};

std::vector<Command> make_table() {
    return {
        {"attend", cmd_attend, "scaled dot-product attention: scores, weights, context, diagnostics",
         {"-x FILE [--kv FILE] [--wq FILE --wk FILE --wv FILE] [--heads H] [OPTIONS]",
          "-q FILE -k FILE -v FILE [OPTIONS]"},
         {"Inputs", "Attention", "Sharding", "Pictures", "Output", "Execution"},
         {},
         {format_choice, causal_choice, masked_rows_choice, normalize_choice, arch_choice,
          {"show", split_list(show_names_text()), true},
          {"pos", option_names::pos},
          {"score", option_names::score},
          {"kv-dtype", option_names::kv_dtype},
          {"softmax-precision", option_names::softmax_precision},
          {"rope-style", option_names::rope_style},
          {"scale", {"auto", "none"}},
          {"svg-of", {"scores", "scaled", "weights"}}},
         {"# self-attention of 4 random token embeddings of 8 dimensions",
          "attn random --shape 4,8 --seed 0 -o x.npy",
          "attn attend -x x.npy --show weights,context",
          "# two heads of 4 dimensions, causal, drawn in the terminal",
          "attn attend -x x.npy --heads 2 --causal --heatmap",
          "# Q, K and V given directly; the weights as json",
          "attn attend -q x.npy -k x.npy -v x.npy --show weights --format json",
          "# pictures: an SVG heatmap and an interactive HTML view",
          "attn attend -x x.npy --svg weights.svg --html weights.html -o context.csv"}},
        {"view", cmd_view, "draw attention weights from elsewhere (output_attentions): heatmap, SVG, HTML",
         {"WEIGHTS [--labels FILE] [--key-labels FILE] [--html FILE] [--svg FILE] [--heatmap] [OPTIONS]"},
         {"", "Pictures", "Execution"},
         {"weights"},
         {arch_choice, {"dims", {"layer,batch,head", "batch,head", "layer,head", "head"}}},
         {"# weights of 2 layers x 3 heads x 5 tokens, as PyTorch's stacked output_attentions of one sentence",
          "attn random --shape 2,3,5,5 --seed 0 -o scores.npy",
          "attn softmax scores.npy -o weights.npy",
          "attn view weights.npy --dims layer,head --html weights.html --svg weights.svg",
          "attn view weights.npy --dims layer,head --layer 1 --head 2 --heatmap"}},
        {"softmax", cmd_softmax, "row-wise numerically stable softmax of a matrix",
         {"[OPTIONS] [FILE|-]"},
         {"", "Output", "Execution"},
         {"input"},
         {format_choice, masked_rows_choice, normalize_choice, arch_choice},
         {"echo '10 20 30' | attn softmax --format pretty",
          "attn random --shape 3,5 --seed 0 -o logits.npy",
          "attn softmax logits.npy --causal --scale 0.5",
          "# a row with every entry masked (-inf) gets uniform weights",
          "printf '1 2 3\\n-inf -inf -inf\\n' | attn softmax --masked-rows uniform"}},
        {"matmul", cmd_matmul, "matrix product A·B or A·Bᵀ",
         {"[OPTIONS] A B"},
         {"", "Output", "Execution"},
         {"left", "right"},
         {format_choice, arch_choice},
         {"attn random --shape 2,3 --seed 0 -o a.npy",
          "attn random --shape 4,3 --seed 1 -o b.npy",
          "attn matmul a.npy b.npy --transpose-b",
          "# A from standard input, the product as json",
          "attn random --shape 2,4 --seed 2 | attn matmul - b.npy --format json",
          "# weights times values, both from one run on standard input: its context",
          "attn random --shape 4,8 --seed 0 | attn attend -x - --show weights,values | attn matmul -:weights -:values"}},
        {"example", cmd_example, "the tutorials' worked examples: list, show, --check",
         {"[OPTIONS] [NAME]"},
         {"", "Output", "Execution"},
         {"name"},
         {arch_choice, text_format_choice},
         {"attn example",
          "attn example simple",
          "attn example masking --digits 2",
          "attn example --check",
          "# the example's files in a folder, and the commands that run on them there",
          "attn example trainable --export trainable"},
         true, example_names},
        {"random", cmd_random, "PyTorch-identical random matrices (torch.manual_seed + randn/rand)",
         {"--shape DIMS [--seed S] [OPTIONS]"},
         {"", "Output", "Execution"},
         {},
         {format_choice, torch_kernel_choice, arch_choice, {"generator", option_names::generator},
          {"dtype", option_names::random_dtype}},
         {"# torch.manual_seed(42); torch.randn(3, 2)",
          "attn random --shape 3,2 --seed 42",
          "attn random --shape 2,4,8 --seed 0 -o x.npy",
          "# torch.rand(5) * 2 - 1, as json",
          "attn random --shape 5 --uniform --low -1 --high 1 --seed 7 --format json"}},
        {"variance", cmd_variance, "the dot-product variance experiment: why scores are scaled",
         {"[--dk LIST] [OPTIONS]"},
         {"", "Output", "Execution"},
         {},
         {text_format_choice, torch_kernel_choice, arch_choice},
         {"attn variance --dk 64,128,256",
          "attn variance --dk 1,2,4,...,1024 --rows 8 --batch 4 --svg variance.svg -o variance.csv"}},
        {"bench", cmd_bench, "time the kernels in-process: GFLOP/s, speed-up, FMA peak",
         {"[--op OP] [--sizes LIST] [OPTIONS]"},
         {"", "Execution"},
         {},
         {{"op", {"matmul", "softmax", "attention", "mha", "all"}},
          {"format", {"table", "json", "csv"}},
          arch_choice,
          {"kv-dtype", option_names::kv_dtype, true},
          {"paths", option_names::bench_paths, true},
          {"rope-style", option_names::rope_style}},
         {"attn bench --op matmul --sizes 64,128 --repeat 3",
          "attn bench --op attention --sizes 256 --d 64 --causal --repeat 3 --format json"}},
        {"ls", cmd_ls, "list the tensors of a model file (.npz, .safetensors, torch.save .bin/.pt): name, dtype, shape",
         {"FILE"},
         {""},
         {"file"},
         {},
         {"# a model file you have (data/models/small.safetensors holds these tensors)",
          "attn ls model.safetensors",
          "# one of its tensors as the keys and values",
          "attn attend -q model.safetensors:floats_f32 -k model.safetensors:floats_f16 "
          "-v model.safetensors:floats_bf16"}},
        {"concat", cmd_concat, "join tensors (npy or text shards) along an axis",
         {"[OPTIONS] FILE..."},
         {"", "Output"},
         {},
         {format_choice},
         {"attn random --shape 2,3 --seed 0 -o a.npy",
          "attn random --shape 2,3 --seed 1 -o b.npy",
          "attn concat a.npy b.npy --axis 1 -o ab.npy",
          "attn concat a.npy b.npy --format pretty"}},
        {"merge", cmd_merge, "merge key shards (attend --key-rows, --show context,lse) into the whole result",
         {"[OPTIONS] FILE..."},
         {"", "Output"},
         {},
         {format_choice, {"show", option_names::merge_show, true}},
         {"attn random --shape 8,4 --seed 0 -o x.npy",
          "attn attend -x x.npy --key-rows 0:5 --show context,lse --format npz -o a.npz",
          "attn attend -x x.npy --key-rows 5:8 --show context,lse --format npz -o b.npz",
          "attn merge a.npz b.npz --show context"}},
        {"positions", cmd_positions, "the sinusoidal position table of Attention Is All You Need",
         {"--shape T,D [--base N] [OPTIONS]"},
         {"", "Output"},
         {},
         {format_choice},
         {"attn positions --shape 4,6",
          "# attention with positions: the table added to -x",
          "attn random --shape 4,6 --seed 0 -o x.txt",
          "attn attend -x x.txt --pos sinusoidal --show weights"}},
        {"tokenize", cmd_tokenize, "token ids of a text from a model folder's tokenizer (tokenizer.json, vocab.txt)",
         {"PATH --text TEXT [--text-pair TEXT] [OPTIONS]"},
         {""},
         {"path"},
         {{"format", {"pretty", "csv", "tsv", "json", "ids"}}},
         {"# bert: a BERT tokenizer folder you have (the tests make one from data/tokenize/bert-base-uncased)",
          "attn tokenize bert --text 'time flies like an arrow'",
          "attn tokenize bert --text 'the man went to the store' --text-pair 'he bought milk' --format json",
          "# the ids alone, comma-separated",
          "attn tokenize bert --text 'fruit flies like a banana' --format ids"}},
        {"model", cmd_model, "a Hugging Face model folder's attention weights and hidden states on token ids",
         {"PATH --ids LIST [--show attentions,hidden-states,tokens] [--layer L] [--head H] [OPTIONS]"},
         {"Inputs", "Output", "Pictures", "Execution"},
         {"path"},
         {format_choice, arch_choice, {"show", {"attentions", "hidden-states", "tokens"}, true}},
         {"# bert-tiny: a tiny random-weight BertModel folder (config.json, model.safetensors)",
          "attn model bert-tiny --ids 1,17,42,2 --layer 1 --head 0 --format pretty",
          "# every layer and head, (layers, batch, heads, tokens, tokens), and the hidden states",
          "attn model bert-tiny --ids 1,17,42,2 --show attentions,hidden-states --format npz -o out.npz",
          "# a batch of two rows, drawn in the terminal",
          "attn model bert-tiny --ids '1,17,2;1,42,2' --layer 0 --head 1 --heatmap"}},
        {"help", cmd_help, "help of attn or of one command; the man page (--man)",
         {"[COMMAND]", "--man"},
         {},
         {},
         {},
         {"attn help attend",
          "attn help --man > attn.1",
          "man -l attn.1 > /dev/null"},
         false, command_names, {{"man", "Print the manual page of attn and of every command (roff: man -l FILE)"}}},
        {"completions", cmd_completions, "print the bash or zsh completion script",
         {"bash|zsh"},
         {},
         {},
         {},
         {"attn completions bash > attn.bash",
          "# in ~/.bashrc: enable it for this shell",
          "source ./attn.bash"},
         false, [] { return std::vector<std::string>{"bash", "zsh"}; }},
    };
}

}  // namespace

const std::vector<Command>& command_table() {
    static const std::vector<Command> table = make_table();
    return table;
}

std::vector<std::string> command_names() {
    std::vector<std::string> names;
    for (const Command& c : command_table()) names.emplace_back(c.name);
    return names;
}

const Command* find_command(std::string_view name) {
    for (const Command& c : command_table())
        if (name == c.name) return &c;
    return nullptr;
}

}  // namespace attn::cli
