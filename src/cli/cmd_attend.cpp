// attn attend: self- or cross-attention on matrices read from files.
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/diagnostics.hpp"
#include "attn/error.hpp"
#include "attn/html_view.hpp"
#include "attn/io.hpp"
#include "attn/viz.hpp"
#include "cli/attend_options.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "io/output_file.hpp"

namespace attn::cli {

namespace {

const char* const show_names[] = {"queries", "keys", "values", "scores", "scaled", "weights", "context", "variance"};

struct Show {
    bool queries = false, keys = false, values = false, scores = false, scaled = false, weights = false,
         context = false, variance = false;
    std::vector<std::string> order;  // as the user listed them
};

Show parse_show(const std::string& list) {
    Show s;
    std::stringstream in(list);
    std::string name;
    while (std::getline(in, name, ',')) {
        if (name.empty()) throw UsageError("invalid --show '" + list + "': an empty item");
        bool* flag = name == "queries"    ? &s.queries
                     : name == "keys"     ? &s.keys
                     : name == "values"   ? &s.values
                     : name == "scores"   ? &s.scores
                     : name == "scaled"   ? &s.scaled
                     : name == "weights"  ? &s.weights
                     : name == "context"  ? &s.context
                     : name == "variance" ? &s.variance
                                          : nullptr;
        if (!flag) {
            std::string valid;
            for (const char* n : show_names) valid += std::string(valid.empty() ? "" : ", ") + n;
            throw UsageError("invalid --show item '" + name + "': expected a comma-separated list of " + valid);
        }
        if (!*flag) s.order.push_back(name);
        *flag = true;
    }
    if (s.order.empty() || list.back() == ',') throw UsageError("invalid --show '" + list + "': an empty item");
    return s;
}

std::string dims(const Matrix& m) { return std::to_string(m.rows()) + "x" + std::to_string(m.cols()); }

// A result must be finite, except NaN rows the user asked for (--masked-rows nan on rows
// with no allowed key) and -inf in the scaled matrix, where it marks masked entries.
void check_finite(const Matrix& m, const char* name, bool allow_neg_inf, const std::vector<bool>& nan_rows) {
    for (std::size_t i = 0; i < m.rows(); ++i) {
        if (i < nan_rows.size() && nan_rows[i]) continue;
        for (std::size_t j = 0; j < m.cols(); ++j) {
            const float v = m(i, j);
            if (std::isfinite(v) || (allow_neg_inf && v < 0 && std::isinf(v))) continue;
            throw RuntimeFailure(std::string(name) + " row " + std::to_string(i + 1) + ", column " +
                                 std::to_string(j + 1) + " is " + (std::isnan(v) ? "NaN" : "infinite") +
                                 ": the inputs overflow float32 (scale them down)");
        }
    }
}

// "scale 1/√d_k = 0.7071", "scale 1 (none)", "scale 0.5" for picture titles.
std::string scale_text(const std::string& given, std::size_t d_k, float scale) {
    char buf[96];
    if (given == "auto") std::snprintf(buf, sizeof buf, "scale 1/\u221a%zu = %.4g", d_k, double(scale));
    else if (given == "none") std::snprintf(buf, sizeof buf, "unscaled");
    else std::snprintf(buf, sizeof buf, "scale %.4g", double(scale));
    return buf;
}

std::string masking_text(const ScoreMask& sm) {
    std::string t;
    if (sm.causal != Causal::none) t = std::string("causal (") + causal_name(sm.causal) + ")";
    if (sm.mask) t += std::string(t.empty() ? "" : " + ") + "mask";
    if (sm.bias) t += std::string(t.empty() ? "" : " + ") + "bias";
    return t;
}

}  // namespace

int cmd_attend(int argc, char** argv) {
    cxxopts::Options options("attn attend",
                             "Scaled dot-product attention: softmax(scale·Q·Kᵀ + bias, masked)·V.\n"
                             "Self-attention from embeddings (-x, optional --wq/--wk/--wv projections) or\n"
                             "cross-attention from -q/-k/-v given directly.");
    options.custom_help("(-x FILE [--wq FILE] [--wk FILE] [--wv FILE] | -q FILE -k FILE -v FILE) [OPTIONS]");
    options.add_options("Inputs (FILE is text or .npy; '-' = standard input, at most once)")
        ("x", "Embeddings X (T×D); Q = X·W_q, K = X·W_k, V = X·W_v", cxxopts::value<std::string>(), "FILE")
        ("wq", "Query projection W_q (D×d_k); identity when omitted", cxxopts::value<std::string>(), "FILE")
        ("wk", "Key projection W_k (D×d_k); identity when omitted", cxxopts::value<std::string>(), "FILE")
        ("wv", "Value projection W_v (D×d_v); identity when omitted", cxxopts::value<std::string>(), "FILE")
        ("q", "Queries Q (Tq×d_k)", cxxopts::value<std::string>(), "FILE")
        ("k", "Keys K (Tk×d_k)", cxxopts::value<std::string>(), "FILE")
        ("v", "Values V (Tk×d_v)", cxxopts::value<std::string>(), "FILE")
        ("labels", "Token labels, one per line (rows/columns of pretty output)", cxxopts::value<std::string>(), "FILE");
    options.add_options("Attention")
        ("scale", "auto = 1/sqrt(d_k), none = 1, or a number",
         cxxopts::value<std::string>()->default_value("auto"), "S")
        ("causal", "Causal mask: top-left (default; query i sees keys j <= i, PyTorch is_causal) or "
                   "bottom-right (j <= i + Tk - Tq, decoding with a cache). Use --causal or --causal=ALIGN",
         cxxopts::value<std::string>()->implicit_value("top-left"), "ALIGN")
        ("mask", "Tq×Tk boolean mask: nonzero = may attend (PyTorch SDPA polarity)", cxxopts::value<std::string>(), "FILE")
        ("bias", "Tq×Tk additive bias added to the scaled scores; -inf allowed", cxxopts::value<std::string>(), "FILE")
        ("masked-rows", "A query row with every key masked gets: zero (weights and context 0, PyTorch >= 2.5), "
                        "nan, or uniform (mean of V, as JAX)",
         cxxopts::value<std::string>()->default_value("zero"), "POLICY")
        ("normalize", "softmax, or sum (divide each row by its sum; a zero sum is an error)",
         cxxopts::value<std::string>()->default_value("softmax"), "HOW")
        ("show", "Comma-separated: queries, keys, values (projected), scores (raw Q·Kᵀ), scaled (scale·Q·Kᵀ + "
                 "bias, masked = -inf), weights, context, variance (diagnostics)",
         cxxopts::value<std::string>()->default_value("context"), "LIST");
    options.add_options("Pictures")
        ("heatmap", "Draw the weights in the terminal (colour on a terminal unless NO_COLOR is set; shade "
                    "characters otherwise; masked cells as ××). Alone it replaces the matrices; with an "
                    "explicit --show it follows pretty output or output written with -o")
        ("svg", "Write an SVG heatmap of the weights (or of --svg-of) to FILE", cxxopts::value<std::string>(), "FILE")
        ("svg-of", "Matrix drawn by --svg: scores, scaled or weights",
         cxxopts::value<std::string>()->default_value("weights"), "WHAT");
    // ---- interactive HTML view (src/viz/html.cpp) ----
    options.add_options("Pictures")
        ("html", "Write an interactive HTML view of the weights to FILE: bertviz-style head view (hover a token), "
                 "matrix view with values, shape/scale/masking; one self-contained file, no network",
         cxxopts::value<std::string>(), "FILE");
    add_output_options(options);
    add_exec_options(options);

    auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;
    apply_exec_options(r);
    const io::OutputOptions out = output_options(r);
    const bool heatmap = r["heatmap"].as<bool>();
    const bool show_given = r.count("show") > 0;
    // --heatmap alone draws only the picture; with --show it joins pretty (or -o) output.
    const Show show = heatmap && !show_given ? Show{} : parse_show(r["show"].as<std::string>());
    if (heatmap && !show_given && r.count("format"))
        throw UsageError("--heatmap alone prints no matrices, so --format has nothing to format: add --show");
    if (heatmap && !show_given && !out.path.empty())
        throw UsageError("--heatmap alone prints no matrices, so -o has nothing to write: add --show");
    if (heatmap && show_given && out.path.empty() && out.format != io::Format::pretty)
        throw UsageError("--heatmap draws on standard output: combine it with --format pretty, or send the "
                         "matrices elsewhere with -o");
    const std::string svg_of = r["svg-of"].as<std::string>();
    if (svg_of != "scores" && svg_of != "scaled" && svg_of != "weights")
        throw UsageError("invalid --svg-of '" + svg_of + "': expected scores, scaled or weights");
    if (r.count("svg-of") && !r.count("svg")) throw UsageError("--svg-of chooses what --svg draws: --svg FILE is missing");
    const bool svg = r.count("svg") > 0;
    if (svg && r["svg"].as<std::string>().empty()) throw UsageError("--svg needs a file name");
    if (svg && r["svg"].as<std::string>() == "-" && (out.path.empty() || heatmap))
        throw UsageError("--svg - would mix the SVG with other output on standard output: send the matrices "
                         "to -o (without --heatmap)");

    const bool self = r.count("x") || r.count("wq") || r.count("wk") || r.count("wv");
    const bool cross = r.count("q") || r.count("k") || r.count("v");
    if (self && cross) throw UsageError("-x/--wq/--wk/--wv and -q/-k/-v are two different forms: use one");
    if (!self && !cross) throw UsageError("no input: give -x FILE (self-attention) or -q, -k and -v (see --help)");
    if (self && !r.count("x")) throw UsageError("--wq/--wk/--wv project embeddings: -x FILE is missing");
    if (cross)
        for (const char* o : {"q", "k", "v"})
            if (!r.count(o)) throw UsageError(std::string("-") + o + " FILE is missing (cross-attention needs -q, -k and -v)");

    InputNames names;
    auto read = [&](const char* opt, io::Finite finite = io::Finite::required) -> std::optional<Matrix> {
        if (!r.count(opt)) return std::nullopt;
        const std::string flag = (std::string(opt).size() == 1 ? "-" : "--") + std::string(opt);
        return io::read_matrix(names.claim(r[opt].as<std::string>(), flag), finite);
    };

    Matrix Q, K, V;
    if (self) {
        const Matrix X = *read("x");
        const auto Wq = read("wq"), Wk = read("wk"), Wv = read("wv");
        auto named = [](const std::optional<Matrix>& m) { return m ? &*m : nullptr; };
        auto check = [&](const std::optional<Matrix>& W, const char* flag) {
            if (W && W->rows() != X.cols())
                throw InputError(std::string(flag) + " is " + dims(*W) + " but -x has D=" + std::to_string(X.cols()) +
                                 ": a projection needs D rows");
        };
        check(Wq, "--wq"), check(Wk, "--wk"), check(Wv, "--wv");
        const std::size_t dq = Wq ? Wq->cols() : X.cols(), dk = Wk ? Wk->cols() : X.cols();
        if (dq != dk)
            throw InputError(std::string(Wk ? "--wk" : "-x (no --wk)") + " gives d_k=" + std::to_string(dk) + " but " +
                             (Wq ? "--wq" : "-x (no --wq)") + " gives d_k=" + std::to_string(dq));
        Projections p = project(X, named(Wq), named(Wk), named(Wv));
        Q = std::move(p.queries), K = std::move(p.keys), V = std::move(p.values);
    } else {
        Q = *read("q"), K = *read("k"), V = *read("v");
        if (K.cols() != Q.cols())
            throw InputError("-k has d_k=" + std::to_string(K.cols()) + " but -q has d_k=" + std::to_string(Q.cols()));
        if (V.rows() != K.rows())
            throw InputError("-v has " + std::to_string(V.rows()) + " row" + (V.rows() == 1 ? "" : "s") + " but -k has " +
                             std::to_string(K.rows()) + ": every key needs a value");
    }
    const std::size_t Tq = Q.rows(), Tk = K.rows();
    const auto mask = read("mask");
    const auto bias = read("bias", io::Finite::allow_neg_inf);
    for (const auto& [m, flag] : {std::pair{&mask, "--mask"}, std::pair{&bias, "--bias"}})
        if (*m && ((*m)->rows() != Tq || (*m)->cols() != Tk))
            throw InputError(std::string(flag) + " is " + dims(**m) + " but the scores are " + std::to_string(Tq) + "x" +
                             std::to_string(Tk) + " (queries x keys)");

    std::vector<std::string> labels;
    if (r.count("labels")) {
        labels = io::read_labels(names.claim(r["labels"].as<std::string>(), "--labels"));
        if (labels.size() != Tq && labels.size() != Tk)
            throw InputError("--labels has " + std::to_string(labels.size()) + " labels but there are " +
                             std::to_string(Tq) + " queries and " + std::to_string(Tk) + " keys");
    }

    AttentionOptions opt;
    opt.score_mask.scale = parse_scale(r["scale"].as<std::string>(), Q.cols());
    if (r.count("causal")) opt.score_mask.causal = parse_causal(r["causal"].as<std::string>());
    opt.score_mask.mask = mask ? &*mask : nullptr;
    opt.score_mask.bias = bias ? &*bias : nullptr;
    opt.masked_rows = parse_masked_rows(r["masked-rows"].as<std::string>());
    opt.normalize = parse_normalize(r["normalize"].as<std::string>());
    if (opt.score_mask.causal != Causal::none && Tq != Tk)
        std::fprintf(stderr, "attn: note: Tq=%zu != Tk=%zu: causal mask aligned %s (query i sees keys j <= %s)\n", Tq, Tk,
                     causal_name(opt.score_mask.causal),
                     opt.score_mask.causal == Causal::top_left ? "i" : "i + Tk - Tq");

    AttentionWants wants;
    wants.scores = show.scores || show.variance || (svg && svg_of == "scores");
    wants.scaled = show.scaled || (svg && svg_of == "scaled");
    wants.weights = show.weights || show.variance || heatmap || (svg && svg_of == "weights") || r.count("html");
    wants.context = show.context;
    AttentionResult res = attend(Q, K, V, opt, wants);
    // A row reported as fully masked whose mask, causal rule and bias allow some key: its
    // finite scores overflowed float32 toward -inf. The true weights are a distribution, not
    // a masked row: a numeric failure, as for an overflow toward +inf.
    std::size_t truly_masked = 0;
    for (std::size_t i = 0; i < Tq; ++i) truly_masked += allowed_keys(opt.score_mask, i, Tq, Tk) == 0;
    if (res.masked_rows > truly_masked) {
        const std::size_t n = res.masked_rows - truly_masked;
        throw RuntimeFailure("the scaled scores of " + std::to_string(n) + " row" + (n == 1 ? "" : "s") +
                             " overflow float32, so every key would get weight 0: scale the inputs down");
    }
    // Rows that legitimately hold NaN: fully masked rows under --masked-rows nan.
    std::vector<bool> nan_rows(Tq, false);
    if (opt.masked_rows == MaskedRowPolicy::nan)
        for (std::size_t i = 0; i < Tq; ++i) nan_rows[i] = allowed_keys(opt.score_mask, i, Tq, Tk) == 0;
    if (show.queries) check_finite(Q, "queries", false, {});
    if (show.keys) check_finite(K, "keys", false, {});
    if (show.values) check_finite(V, "values", false, {});
    if (wants.scores) check_finite(res.scores, "scores", false, {});
    if (wants.scaled) check_finite(res.scaled, "scaled scores", true, {});
    if (wants.weights) check_finite(res.weights, "weights", false, nan_rows);
    if (wants.context) check_finite(res.context, "context", false, nan_rows);

    std::optional<VarianceReport> report;
    if (show.variance) report = variance_report(Q, K, res.scores, res.weights, opt.score_mask);

    const std::vector<std::string>& row_labels = labels.size() == Tq ? labels : std::vector<std::string>{};
    const std::vector<std::string>& key_labels = labels.size() == Tk ? labels : std::vector<std::string>{};
    std::vector<io::Item> items;
    for (const std::string& name : show.order) {
        io::Item it;
        it.name = name;
        if (name == "queries") it.matrix = &Q, it.row_labels = row_labels;
        else if (name == "keys") it.matrix = &K, it.row_labels = key_labels;
        else if (name == "values") it.matrix = &V, it.row_labels = key_labels;
        else if (name == "scores") it.matrix = &res.scores, it.row_labels = row_labels, it.col_labels = key_labels;
        else if (name == "scaled") it.matrix = &res.scaled, it.row_labels = row_labels, it.col_labels = key_labels;
        else if (name == "weights") it.matrix = &res.weights, it.row_labels = row_labels, it.col_labels = key_labels;
        else if (name == "context") it.matrix = &res.context, it.row_labels = row_labels;
        else it.fields = variance_fields(*report);
        items.push_back(std::move(it));
    }
    // Every output of the run goes out in one all-or-nothing step (io/output_file.hpp): when
    // one of them fails, nothing is on standard output and no new file is left behind.
    std::vector<io::detail::PendingFile> files;
    if (svg) {
        viz::SvgHeatmapOptions so;
        so.what = svg_of;
        so.row_labels = row_labels;
        so.col_labels = key_labels;
        so.scale_text = scale_text(r["scale"].as<std::string>(), Q.cols(), opt.score_mask.scale);
        so.masking_text = masking_text(opt.score_mask);
        so.masked = viz::cell_mask(opt.score_mask, Tq, Tk);
        const Matrix& m = svg_of == "scores" ? res.scores : svg_of == "scaled" ? res.scaled : res.weights;
        const std::string svg_path = r["svg"].as<std::string>();
        files.push_back({svg_path == "-" ? "" : svg_path, viz::svg_heatmap(m, so)});
    }
    if (r.count("html")) {  // ---- interactive HTML view ----
        const std::string& html_path = r["html"].as<std::string>();
        if (html_path.empty() || html_path == "-") throw UsageError("--html needs a file name");
        viz::HtmlViewOptions ho;
        ho.query_labels = row_labels, ho.key_labels = key_labels;
        ho.scale_text = scale_text(r["scale"].as<std::string>(), Q.cols(), opt.score_mask.scale);
        ho.masking_text = masking_text(opt.score_mask);
        ho.masked = [cells = viz::cell_mask(opt.score_mask, Tq, Tk)](std::size_t, std::size_t q, std::size_t k) {
            return cells && cells(q, k);
        };
        files.push_back({html_path, viz::html_view(view_of(res.weights), ho)});
    }
    if (!items.empty())
        for (auto& f : io::detail::output_files(items, out)) files.push_back(std::move(f));
    if (heatmap)
        files.push_back({"", (items.empty() || !out.path.empty() ? "" : "\n") +
                                 viz::heatmap_text(res.weights, row_labels, key_labels,
                                                   viz::want_color(stdout_is_terminal()),
                                                   viz::cell_mask(opt.score_mask, Tq, Tk))});
    io::detail::write_files(files);
    report_masked_rows(res.masked_rows, opt.masked_rows);
    return exit_ok;
}

}  // namespace attn::cli
