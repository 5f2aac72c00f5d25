// attn view WEIGHTS: the pictures `attn attend` draws (terminal heatmap, SVG, interactive HTML),
// of attention weights computed elsewhere, e.g. PyTorch's output_attentions stacked into
// (L, B, H, T, T) and saved with NumPy.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/html_view.hpp"
#include "attn/io.hpp"
#include "attn/tensor.hpp"
#include "attn/viz.hpp"
#include "attn/viz_grid.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/option_values.hpp"
#include "runtime/did_you_mean.hpp"
#include "write/output_file.hpp"

namespace attn::cli {

namespace {

const std::vector<std::string> dim_order{"layer", "batch", "head"};

// The leading dimensions' names: --dims, or by rank (head; batch, head; layer, batch, head). The
// first of a stacked sequence of layers is the layer's.
std::vector<std::string> leading_names(const cxxopts::ParseResult& r, const Shape& shape, bool layers_stacked) {
    const std::size_t lead = shape.rank() - 2;
    if (!r.count("dims")) {
        std::vector<std::string> names(dim_order.end() - std::ptrdiff_t(lead), dim_order.end());
        if (layers_stacked) {
            names = std::vector<std::string>(dim_order.end() - std::ptrdiff_t(lead - 1), dim_order.end());
            names.insert(names.begin(), "layer");
        }
        return names;
    }
    const std::string text = r["dims"].as<std::string>();
    std::vector<std::string> names;
    std::size_t next = 0, start = 0;
    for (;;) {
        const std::size_t comma = text.find(',', start);
        const std::string n = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        std::size_t at = 0;
        while (at < dim_order.size() && dim_order[at] != n) ++at;
        if (at == dim_order.size() || at < next)
            throw UsageError("invalid --dims '" + text + "': expected some of layer, batch, head, in that order" +
                             (at == dim_order.size() ? did_you_mean(n, dim_order) : ""));
        next = at + 1;
        names.push_back(n);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (names.size() != lead)
        throw UsageError("invalid --dims '" + text + "': the weights " + shape.text() + " have " +
                         std::to_string(lead) + " leading dimension" + (lead == 1 ? "" : "s") + ", not " +
                         std::to_string(names.size()));
    return names;
}

// Index of slice s over the leading dimensions of `shape`.
std::vector<std::size_t> slice_index(const Shape& shape, std::size_t s) {
    std::vector<std::size_t> index(shape.rank() - 2);
    for (std::size_t d = index.size(); d-- > 0;) index[d] = s % shape[d], s /= shape[d];
    return index;
}

std::string index_name(const std::vector<std::string>& names, const std::vector<std::size_t>& index) {
    std::string out;
    for (std::size_t d = 0; d < names.size(); ++d) out += (d ? ", " : "") + names[d] + " " + std::to_string(index[d]);
    return out;
}

// Weights are what softmax gives: finite and >= 0. Anything else (scores, logits, a NaN row)
// is refused with its place, never drawn as if it were weights.
void check_weights(const Tensor& w, const std::string& file, const std::vector<std::string>& names) {
    for (std::size_t s = 0; s < w.slices(); ++s) {
        const MatrixView m = w.slice(s);
        for (std::size_t q = 0; q < m.rows; ++q)
            for (std::size_t k = 0; k < m.cols; ++k) {
                const float v = m(q, k);
                if (std::isfinite(v) && v >= 0) continue;
                const std::string where = (names.empty() ? "" : index_name(names, slice_index(w.shape(), s)) + ", ") +
                                          "query " + std::to_string(q) + ", key " + std::to_string(k);
                char value[32];
                std::snprintf(value, sizeof value, "%g", double(v));
                throw InputError(file + ": " + where + ": " + value + " is not a weight (weights are finite and >= 0; " +
                                 (std::isfinite(v) ? "scores or logits? normalise them with `attn softmax` first)"
                                                   : "a fully masked row? give weights without NaN or infinity)"));
            }
    }
}

std::vector<std::string> labels_of(const cxxopts::ParseResult& r, const std::string& option, std::size_t n,
                                   const std::string& what) {
    if (!r.count(option)) return {};
    const std::string path = r[option].as<std::string>();
    std::vector<std::string> labels = io::read_labels(path);
    if (labels.size() != n)
        throw InputError(path + ": " + std::to_string(labels.size()) + " labels for " + std::to_string(n) + " " + what +
                         " (--" + option + " gives one label a line)");
    return labels;
}

}  // namespace

int cmd_view(int argc, char** argv) {
    cxxopts::Options options(
        "attn view",
        "Draws attention weights computed elsewhere with the pictures of `attn attend`: a tensor\n"
        "of Tq x Tk weights with up to three leading dimensions, (L, B, H, Tq, Tk) by default\n"
        "for 5 dims, (B, H, ...) for 4 and (H, ...) for 3 (--dims names them otherwise), such\n"
        "as PyTorch's output_attentions stacked with torch.stack and saved with numpy.save.\n"
        "WEIGHTS is .npy, text, or a member FILE.npz:NAME / FILE.safetensors:NAME / FILE.pt:NAME.\n"
        "A file that holds a sequence of layers, torch.save(outputs.attentions) as it is (a tuple\n"
        "or list) or numpy.savez(*attentions), is stacked as torch.stack would: (L, ...). Every entry\n"
        "must be a weight: finite and >= 0 (exit 3 otherwise, naming the place).\n");
    options.positional_help("WEIGHTS");
    options.add_options()
        ("weights", "The weights tensor", cxxopts::value<std::string>())
        ("labels", "Token labels of the queries, one a line (and of the keys unless --key-labels)",
         cxxopts::value<std::string>(), "FILE")
        ("key-labels", "Token labels of the keys, one a line (default: --labels)", cxxopts::value<std::string>(),
         "FILE")
        ("dims", "Names of the leading dimensions, some of layer,batch,head in that order (e.g. layer,head for "
                 "(L, H, Tq, Tk))", cxxopts::value<std::string>(), "NAMES")
        ("layer", "Draw only layer l (0-based)", cxxopts::value<std::string>(), "l")
        ("batch", "Draw only batch item b (0-based)", cxxopts::value<std::string>(), "b")
        ("head", "Draw only head h (0-based)", cxxopts::value<std::string>(), "h")
        ("sentence-b", "First token of sentence B (0-based) for the HTML view's A/B filter (default: after the "
                       "first [SEP] or </s> label)", cxxopts::value<std::string>(), "i");
    options.add_options("Pictures")
        ("heatmap", "Draw the weights in the terminal, one heatmap per slice (colour on a terminal unless NO_COLOR "
                    "is set); wider than $COLUMNS (else the terminal, else 80) in column blocks, max-pooled to fit "
                    "beyond 4 blocks")
        ("svg", "Write an SVG heatmap to FILE ('-' = standard output); several slices: a grid with one colour scale",
         cxxopts::value<std::string>(), "FILE")
        ("html", "Write the interactive HTML view to FILE: head view with layer selector, head toggles and hover, "
                 "model view (L x H thumbnails), matrix view with a colour bar; offline, one file",
         cxxopts::value<std::string>(), "FILE")
        ("title", "Title of the HTML page (default: the file name)", cxxopts::value<std::string>(), "TEXT");
    options.parse_positional({"weights"});
    add_exec_options(options);
    const auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;

    if (!r.count("weights")) throw UsageError("missing WEIGHTS: the file of attention weights to draw (see --help)");
    const bool heatmap = r["heatmap"].as<bool>();
    if (!heatmap && !r.count("svg") && !r.count("html"))
        throw UsageError("nothing to draw: give --heatmap, --svg FILE or --html FILE");
    if (heatmap && r.count("svg") && is_standard_stream(r["svg"].as<std::string>()))
        throw UsageError("--svg - would mix the SVG with --heatmap on standard output: write the SVG to a file");
    const std::string svg_file =
        r.count("svg") ? svg_path(r["svg"].as<std::string>(), heatmap, "--heatmap", "write the SVG to a file") : "";
    if (r.count("html")) html_path(r["html"].as<std::string>());
    if (r.count("title") && !r.count("html")) throw UsageError("--title names the HTML page: it needs --html FILE");
    if (r.count("sentence-b") && !r.count("html"))
        throw UsageError("--sentence-b sets the HTML view's A/B filter: it needs --html FILE");

    // At most one input reads standard input: checked before any is read.
    InputNames inputs;
    for (const auto& [option, name] : {std::pair{"weights", "WEIGHTS"}, {"labels", "--labels"}, {"key-labels", "--key-labels"}})
        if (r.count(option) && io::reads_standard_input(r[option].as<std::string>()))
            inputs.reserve_stdin(name, r[option].as<std::string>());
    const std::string file = r["weights"].as<std::string>();
    bool layers_stacked = false;  // a saved sequence of layers: outputs.attentions as it is
    Tensor all = io::read_stacked(file, io::Finite::any, 5, &layers_stacked);
    if (layers_stacked && all.rank() < 3) {
        std::vector<std::size_t> layer(all.shape().rank() - 1);
        for (std::size_t d = 1; d < all.rank(); ++d) layer[d - 1] = all.shape()[d];
        throw InputError(file + ": a sequence of " + std::to_string(all.shape()[0]) + " tensors of shape " +
                         Shape(layer).text() + ": expected layers of Tq x Tk weights, with up to two leading "
                         "dimensions (batch, head)");
    }
    if (all.rank() < 2)
        throw InputError(file + ": weights of shape " + all.shape().text() + ": expected Tq x Tk weights, with up to "
                         "three leading dimensions (layer, batch, head)");
    const std::vector<std::string> names = leading_names(r, all.shape(), layers_stacked);
    check_weights(all, file, names);

    // --layer/--batch/--head: keep the chosen index of that dimension, and drop the dimension.
    std::vector<long long> chosen(names.size(), -1);
    for (const std::string& opt : dim_order) {
        if (!r.count(opt)) continue;
        std::size_t d = 0;
        while (d < names.size() && names[d] != opt) ++d;
        if (d == names.size())
            throw UsageError("--" + opt + " chooses a " + opt + ", but the weights " + all.shape().text() +
                             " have no " + opt + " dimension (--dims names them)");
        const std::string text = r[opt].as<std::string>();
        try {
            chosen[d] = parse_integer(text, "--" + opt, 0, (long long)all.shape()[d] - 1);
        } catch (const UsageError& in_range) {
            // A whole number beyond the weights' extent is an input error, as attn model's --layer
            // and --head beyond the checkpoint's; anything else is this usage error.
            try {
                chosen[d] = parse_integer(text, "--" + opt, 0, std::numeric_limits<long long>::max());
            } catch (const UsageError&) {
                throw in_range;
            }
        }
        if (std::size_t(chosen[d]) >= all.shape()[d])
            throw InputError("--" + opt + " " + std::to_string(chosen[d]) + ": the weights " + all.shape().text() +
                             " have " + std::to_string(all.shape()[d]) + " in the " + opt + " dimension (0 to " +
                             std::to_string(all.shape()[d] - 1) + ")");
    }
    std::vector<std::size_t> dims;
    std::vector<std::string> kept;
    for (std::size_t d = 0; d < names.size(); ++d)
        if (chosen[d] < 0) dims.push_back(all.shape()[d]), kept.push_back(names[d]);
    const std::size_t tq = all.rows(), tk = all.cols();
    dims.push_back(tq), dims.push_back(tk);
    // Every slice kept: the weights as read (no copy of a stack of layers that may be large).
    const bool whole = std::all_of(chosen.begin(), chosen.end(), [](long long c) { return c < 0; });
    Tensor w = whole ? Tensor() : Tensor{Shape(dims)};
    std::vector<std::string> slice_names;
    for (std::size_t s = 0, out = 0; s < all.slices(); ++s) {
        const std::vector<std::size_t> index = slice_index(all.shape(), s);
        bool keep = true;
        for (std::size_t d = 0; d < names.size(); ++d) keep = keep && (chosen[d] < 0 || index[d] == std::size_t(chosen[d]));
        if (!keep) continue;
        if (!whole) {
            const MatrixView m = all.slice(s);
            for (std::size_t q = 0; q < tq; ++q)
                for (std::size_t k = 0; k < tk; ++k) w.slice_data(out)[q * w.row_stride() + k] = m(q, k);
        }
        slice_names.push_back(names.empty() ? "weights" : index_name(names, index));
        ++out;
    }
    if (whole) w = std::move(all);

    const std::vector<std::string> qlabels = labels_of(r, "labels", tq, "queries");
    std::vector<std::string> klabels = labels_of(r, "key-labels", tk, "keys");
    if (!r.count("key-labels") && r.count("labels")) {
        if (tq != tk)
            throw UsageError("--labels names the queries (" + std::to_string(tq) + ") and the keys (" +
                             std::to_string(tk) + "): give the keys' labels with --key-labels");
        klabels = qlabels;
    }
    std::size_t sentence_b = 0;
    if (r.count("sentence-b"))
        sentence_b = std::size_t(parse_integer(r["sentence-b"].as<std::string>(), "--sentence-b", 1,
                                               (long long)std::min(tq, tk) - 1));

    // Every output goes out in one all-or-nothing step (write/output_file.hpp): when one of them
    // fails, nothing is on standard output and no new file is left behind.
    std::vector<io::detail::PendingFile> files;
    if (heatmap) {
        const bool color = viz::want_color(stdout_is_terminal());
        std::string out;
        for (std::size_t s = 0; s < w.slices(); ++s) {
            if (!names.empty()) out += (s ? "\n" : "") + slice_names[s] + ":\n";
            out += viz::heatmap_text(w.slice_matrix(s), qlabels, klabels, color, {}, terminal_columns());
        }
        files.push_back({"", std::move(out)});
    }
    if (r.count("svg")) {
        std::string svg;
        if (w.slices() == 1) {
            viz::SvgHeatmapOptions so;
            so.what = "weights" + (slice_names[0] == "weights" ? std::string() : " " + slice_names[0]);
            so.row_labels = qlabels, so.col_labels = klabels;
            svg = viz::svg_heatmap(w.slice_matrix(0), so);
        } else {
            // One SVG element per cell: beyond this the file runs to tens of MB (as attend's limit).
            if (w.slices() * tq * tk > std::size_t(512) * 512)
                throw UsageError("--svg draws one cell per query-key pair and head: " +
                                 std::to_string(w.slices() * tq * tk) +
                                 " cells are more than 512x512 (choose one with --layer/--batch/--head, or use --html)");
            std::vector<viz::GridPanel> panels;
            for (std::size_t s = 0; s < w.slices(); ++s) panels.push_back({slice_names[s], w.slice_matrix(s), {}});
            viz::SvgGridOptions go;
            go.row_labels = qlabels, go.col_labels = klabels;
            svg = viz::svg_grid(panels, go);
        }
        files.push_back({svg_file, std::move(svg)});
    }
    if (r.count("html")) {
        viz::HtmlViewOptions ho;
        ho.title = r.count("title") ? r["title"].as<std::string>() : "attention weights · " + file;
        ho.query_labels = qlabels, ho.key_labels = klabels;
        ho.slice_names = slice_names;
        ho.dim_names = kept;
        ho.sentence_b = sentence_b;
        files.push_back({output_path(r["html"].as<std::string>()), viz::html_view(w.view(), ho)});
    }
    io::detail::write_files(files);
    return exit_ok;
}

}  // namespace attn::cli
