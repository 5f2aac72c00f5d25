#include "cli/attend/attend_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string_view>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/model_file.hpp"
#include "attn/multihead.hpp"
#include "attn/positions.hpp"
#include "runtime/did_you_mean.hpp"
#include "attn/problem.hpp"
#include "cli/attend/attend_cache.hpp"
#include "cli/attend/attend_options.hpp"
#include "cli/option_values.hpp"

namespace attn::cli {

namespace {

std::string flag_of(const std::string& opt) { return (opt.size() == 1 ? "-" : "--") + opt; }

std::string plural(std::size_t n, const char* word) {
    const std::string w = word;
    if (n == 1) return "1 " + w;
    // entry → entries; key → keys
    const bool consonant_y =
        w.size() >= 2 && w.back() == 'y' && std::string_view("aeiou").find(w[w.size() - 2]) == std::string_view::npos;
    return std::to_string(n) + " " + (consonant_y ? w.substr(0, w.size() - 1) + "ies" : w + "s");
}

// The columns (or entries, for a vector) of an optional tensor; `otherwise` when absent.

class Reader {
public:
    Reader(const cxxopts::ParseResult& r, InputNames& names) : r_(r), names_(names) {}

    bool given(const char* opt) const { return r_.count(opt) > 0; }
    std::string value(const char* opt) const { return r_[opt].as<std::string>(); }

    // The input's path, claimed (a second '-' is refused).
    std::string path(const char* opt) { return names_.claim(value(opt), flag_of(opt)); }
    Tensor tensor(const char* opt, std::size_t max_dims, io::Finite finite = io::Finite::required) {
        if (!given(opt)) return {};
        return io::read_tensor(names_.claim(value(opt), flag_of(opt)), finite, max_dims);
    }
    io::KVInput kv_tensor(const char* opt, std::size_t max_dims) {
        if (!given(opt)) return {};
        return io::read_kv_tensor(names_.claim(value(opt), flag_of(opt)), max_dims);
    }
    // A weight matrix (2-D); in nn.Linear's out×in layout when `linear`, turned to in×out.
    Tensor weight(const char* opt, bool linear) {
        Tensor w = tensor(opt, 2);
        if (w.rank() == 1)
            throw InputError(flag_of(opt) + " is a vector of " + plural(w.cols(), "entry") +
                             ": a projection is a matrix (in×out, or out×in with --linear-layout)");
        // A square weight fits both layouts, so its shape cannot catch a missing --linear-layout.
        // A warning, not a guess: GPT-2's Conv1D weights come from PyTorch files in x·W layout.
        if (!linear && w.rank() == 2 && w.rows() == w.cols() && io::is_pytorch_weight(value(opt)))
            std::fprintf(stderr,
                         "attn: warning: %s %s is a square weight from a PyTorch file, read as in×out (x·W); "
                         "nn.Linear stores out×in: give --linear-layout unless it is a Conv1D weight (GPT-2)\n",
                         flag_of(opt).c_str(), value(opt).c_str());
        return linear && w.rank() ? from_linear_weight(w.view()) : std::move(w);
    }
    // A bias: a vector or a single row.
    Tensor bias(const char* opt) {
        Tensor b = tensor(opt, 2);
        if (b.rank() == 2 && b.rows() != 1)
            throw InputError(flag_of(opt) + " is " + b.shape().dims_text() + ": a bias is one row (or a vector)");
        return b;
    }
    std::vector<std::string> labels(const char* opt) {
        if (!given(opt)) return {};
        const std::string path = names_.claim(value(opt), flag_of(opt));
        std::vector<std::string> labels = io::read_labels(path);
        // An empty list would pass for "not given" below: the labels would silently be dropped.
        if (labels.empty()) throw InputError(flag_of(opt) + ": " + (path == "-" ? "standard input" : path) +
                                             " holds no labels (one per line)");
        return labels;
    }
    const cxxopts::ParseResult& result() const { return r_; }

private:
    const cxxopts::ParseResult& r_;
    InputNames& names_;
};

// A projection's shape as its file holds it, for messages: read with nn.Linear's layout
// (out×in) it was transposed to in×out on reading, so the file's shape is the reverse.
std::string weight_shape_text(const Tensor& w, bool linear) {
    if (!linear) return w.shape().dims_text();
    return std::to_string(w.cols()) + "x" + std::to_string(w.rows()) + " (out×in: " + plural(w.rows(), "input") + ")";
}

void check_bias(const Tensor& b, const char* flag, std::size_t want, const char* what) {
    if (b.rank() && b.cols() != want)
        throw InputError(std::string(flag) + " has " + plural(b.cols(), "entry") + " but " + what + " has " +
                         plural(want, "column"));
}

// The output projection's options, before any file is read: --wo/--bo or
// --out-proj/--out-proj-bias.
void check_output_projection_options(const Reader& r) {
    if (r.given("out-proj") && r.given("wo")) throw UsageError("--out-proj and --wo are both W_O: give one");
    if (r.given("out-proj-bias") && r.given("bo")) throw UsageError("--out-proj-bias and --bo are both b_O: give one");
    if (r.given("out-proj-bias") && !r.given("out-proj"))
        throw UsageError("--out-proj-bias belongs to --out-proj: --out-proj FILE is missing");
    if (r.given("bo") && !r.given("wo")) throw UsageError("--bo is the bias of --wo: --wo FILE is missing");
}

// W_O (and b_O) over the a.heads heads of d_v concatenated, for either form (-x, or
// -q/-k/-v whose heads are dimension -3).
void read_output_projection(Reader& in, AttendInputs& a, std::size_t d_v) {
    const auto& r = in;
    const bool linear = r.given("linear-layout");
    if (r.given("out-proj")) {
        a.wo = in.weight("out-proj", true);
        a.bo = in.bias("out-proj-bias");
    } else {
        a.wo = in.weight("wo", linear);
        a.bo = in.bias("bo");
    }
    const char* o_flag = r.given("out-proj") ? "--out-proj" : "--wo";
    const std::size_t H = a.heads;
    if (a.wo.rank() && a.wo.rows() != H * d_v)
        throw InputError(std::string(o_flag) + " is " + weight_shape_text(a.wo, linear || r.given("out-proj")) +
                         " but the " + plural(H, "head") + " of d_v=" + std::to_string(d_v) + " concatenate to " +
                         std::to_string(H * d_v) + " columns: W_O needs that many " +
                         (linear || r.given("out-proj") ? "inputs (out×in: columns)" : "rows (in×out)"));
    if (a.wo.rank()) check_bias(a.bo, r.given("out-proj") ? "--out-proj-bias" : "--bo", a.wo.cols(), "the output");
}

// The library's ShapeError for the projections (resolve_projections) in the words of the
// options that gave them.
std::string projection_message(const ShapeError& e, const AttendInputs& a, const Reader& r) {
    const bool linear = r.given("linear-layout"), in_proj = r.given("in-proj");
    const char* kv_flag = a.kv.rank() ? "--kv" : "-x";
    if (e.role == Role::embeddings)
        return "-x is a vector of " + plural(a.x.cols(), "entry") + ": embeddings are T×D (or B×T×D)";
    if (e.role == Role::kv_embeddings && e.dimension == "rank")
        return "--kv is " + a.kv.shape().dims_text() + " but -x is " + a.x.shape().dims_text() +
               ": both T×D, or both B×T×D";
    if (e.role == Role::kv_embeddings) return "--kv has " + plural(e.got, "batch item") + " but -x has " + std::to_string(e.wanted);
    const std::string q_flag = in_proj ? "--in-proj" : "--wq", k_flag = in_proj ? "--in-proj" : "--wk",
                      v_flag = in_proj ? "--in-proj" : "--wv";
    if (e.dimension == "rows") {
        const Tensor& w = e.role == Role::wq ? a.wq : e.role == Role::wk ? a.wk : a.wv;
        const std::string& flag = e.role == Role::wq ? q_flag : e.role == Role::wk ? k_flag : v_flag;
        const std::size_t want = e.wanted;
        return flag + " is " + weight_shape_text(w, linear) + " but " + (e.role == Role::wq ? "-x" : kv_flag) +
               " has D=" + std::to_string(want) + ": a projection needs D " +
               (linear ? "inputs (out×in: D columns)" : "rows (in×out)") +
               // nn.Linear's out×in weight given without the flag, or the reverse
               (w.rank() == 2 && w.cols() == want ? (linear ? "; without --linear-layout it would fit"
                                                            : "; with --linear-layout (out×in, as nn.Linear stores it) "
                                                              "it would fit")
                                                  : "");
    }
    const std::string q_src = a.wq.rank() ? q_flag : "-x (no --wq)";
    const std::string k_src = a.wk.rank() ? k_flag : std::string(kv_flag) + " (no --wk)";
    const std::string v_src = a.wv.rank() ? v_flag : std::string(kv_flag) + " (no --wv)";
    const std::size_t G = a.kv_heads, d_k = a.heads ? (a.wq.rank() ? a.wq.cols() : a.x.cols()) / a.heads : 0;
    if (e.role == Role::queries)
        return q_src + " gives " + plural(e.got, "column") + ", not a multiple of --heads " + std::to_string(e.wanted) +
               " (heads are column blocks)";
    if (e.role == Role::keys && !a.heads_given)
        return k_src + " gives d_k=" + std::to_string(e.got) + " but " + q_src + " gives d_k=" + std::to_string(d_k);
    if (e.role == Role::keys)
        return k_src + " gives " + plural(e.got, "column") + " but " + std::to_string(G) + " key head" +
               (G == 1 ? "" : "s") + " of d_k=" + std::to_string(d_k) + " (from " + q_src + ") need " +
               std::to_string(e.wanted);
    if (e.role == Role::values)
        return v_src + " gives " + plural(e.got, "column") + ", not a multiple of the " + plural(e.wanted, "value head");
    const char* bias_flag = in_proj ? "--in-proj-bias" : e.role == Role::bq ? "--bq" : e.role == Role::bk ? "--bk" : "--bv";
    const char* of = e.role == Role::bq ? "Q" : e.role == Role::bk ? "K" : "V";
    return std::string(bias_flag) + " has " + plural(e.got, "entry") + " but " + of + " has " + plural(e.wanted, "column");
}

// --pos sinusoidal: the table (attn/positions.hpp) of positions first, first + 1, ... added to
// every batch item's rows, in place (first: a K/V cache's length, as GPT-2 numbers new tokens
// from past_length).
void add_positions(Tensor& x, std::size_t first) {
    if (x.rank() < 2) return;  // refused with the shape's own message
    const Matrix table = sinusoidal_positions(x.rows(), x.cols(), sinusoidal_base, first);
    for (std::size_t s = 0; s < x.slices(); ++s)
        for (std::size_t t = 0; t < x.rows(); ++t)
            for (std::size_t c = 0; c < x.cols(); ++c) x.slice_data(s)[t * x.row_stride() + c] += table(t, c);
}

// --heads H and --kv-heads G: H a multiple of G (for packed -q/-k/-v too, where a G that does not
// divide H was reported as a column count or d_k mismatch; from an audit).
void check_head_groups(std::size_t heads, std::size_t kv_heads) {
    if (heads % kv_heads != 0)
        throw UsageError("--heads " + std::to_string(heads) + " is not a multiple of --kv-heads " + std::to_string(kv_heads) +
                         ": each key/value head serves H/G query heads");
}

// -x, --kv, projections and heads.
void read_embeddings(Reader& in, AttendInputs& a) {
    const auto& r = in;
    const bool linear = r.given("linear-layout");
    if (r.given("in-proj") && (r.given("wq") || r.given("wk") || r.given("wv")))
        throw UsageError("--in-proj holds W_q, W_k and W_v: drop --wq/--wk/--wv, or --in-proj");
    if (r.given("in-proj-bias") && !r.given("in-proj"))
        throw UsageError("--in-proj-bias belongs to --in-proj: --in-proj FILE is missing");
    if (r.given("in-proj") && (r.given("bq") || r.given("bk") || r.given("bv")))
        throw UsageError("--in-proj takes its biases from --in-proj-bias, not --bq/--bk/--bv");
    check_output_projection_options(r);
    for (const auto& [b, w] : {std::pair{"bq", "wq"}, {"bk", "wk"}, {"bv", "wv"}})
        if (r.given(b) && !r.given(w))
            throw UsageError(flag_of(b) + " is the bias of " + flag_of(w) + ": " + flag_of(w) + " FILE is missing");
    if (r.given("kv-heads") && !r.given("heads"))
        throw UsageError("--kv-heads G groups the query heads of --heads H: --heads is missing");

    a.heads_given = r.given("heads");
    a.heads = std::size_t(integer_option(in.result(), "heads", 1, 65536, 1));
    a.kv_heads = std::size_t(integer_option(in.result(), "kv-heads", 1, 65536, (long long)a.heads));
    check_head_groups(a.heads, a.kv_heads);
    if (r.given("in-proj") && a.kv_heads != a.heads)
        throw UsageError("--in-proj has as many key/value heads as query heads (nn.MultiheadAttention): "
                         "drop --kv-heads, or give --wq/--wk/--wv");

    a.x = in.tensor("x", 3);
    a.kv = in.tensor("kv", 3);
    if (r.given("pos")) {
        const std::string kind = in.result()["pos"].as<std::string>();
        if (!option_names::one_of(option_names::pos, kind))
            throw UsageError("invalid --pos '" + kind + "': expected sinusoidal" +
                             did_you_mean(kind, option_names::pos));
        a.sinusoidal = true;  // added after the cache is read (its length is the first position)
    }
    try {
        check_embeddings(a.x.shape(), a.kv.shape());
    } catch (const ShapeError& e) {
        throw InputError(projection_message(e, a, r));
    }
    const Tensor& xkv = a.kv.rank() ? a.kv : a.x;
    const std::size_t D = a.x.cols(), D_kv = xkv.cols();
    a.batched = a.x.rank() == 3;
    a.batch = a.batched ? a.x.shape()[0] : 1;
    a.Tq = a.x.rows();
    a.Tk = xkv.rows();

    if (r.given("in-proj")) {
        const Tensor w = in.tensor("in-proj", 2);
        const Tensor b = in.tensor("in-proj-bias", 2);
        const std::size_t E = w.rank() == 2 ? fused_projection_width(w.rows(), w.cols()) : 0;
        if (E == 0)
            throw InputError("--in-proj is " + w.shape().dims_text() +
                             ": nn.MultiheadAttention's in_proj_weight is 3E×E ([W_q; W_k; W_v]), GPT-2's c_attn.weight "
                             "E×3E ([W_q | W_k | W_v])");
        if (E != D || D_kv != D)
            throw InputError("--in-proj is " + w.shape().dims_text() + " (E=" + std::to_string(E) + ") but -x has D=" +
                             std::to_string(D) + (a.kv.rank() ? " and --kv has D=" + std::to_string(D_kv) : std::string()));
        if (b.rank() && b.shape().numel() != 3 * E)
            throw InputError("--in-proj-bias has " + plural(b.shape().numel(), "entry") + " but --in-proj has 3E = " +
                             std::to_string(3 * E) + " outputs");
        const TensorView bias_view = b.view();
        InProjection p = split_in_projection(w.view(), b.rank() ? &bias_view : nullptr);
        a.wq = std::move(p.wq), a.wk = std::move(p.wk), a.wv = std::move(p.wv);
        a.bq = std::move(p.bq), a.bk = std::move(p.bk), a.bv = std::move(p.bv);
    } else {
        a.wq = in.weight("wq", linear), a.wk = in.weight("wk", linear), a.wv = in.weight("wv", linear);
        a.bq = in.bias("bq"), a.bk = in.bias("bk"), a.bv = in.bias("bv");
    }
    ProjectionInputs shapes;
    shapes.x = a.x.shape(), shapes.kv = a.kv.shape();
    const auto shape_of = [](const Tensor& t) { return t.rank() ? &t.shape() : nullptr; };
    shapes.wq = shape_of(a.wq), shapes.wk = shape_of(a.wk), shapes.wv = shape_of(a.wv);
    shapes.bq = shape_of(a.bq), shapes.bk = shape_of(a.bk), shapes.bv = shape_of(a.bv);
    shapes.heads = a.heads, shapes.kv_heads = a.kv_heads;
    try {
        a.projections = resolve_projections(shapes);
    } catch (const ShapeError& e) {
        throw InputError(projection_message(e, a, r));
    }
    a.d_k = a.projections.d_k;
    read_output_projection(in, a, a.projections.d_v);
}


// A vector read from .npy (shape (n,)) as the one row it stands for, as the formats say.
Tensor as_row_if_vector(Tensor t) { return t.rank() == 1 ? Tensor(std::move(t).to_matrix()) : std::move(t); }

// -q, -k, -v as read (their shapes are checked with the mask, bias and lengths, by the
// engine's resolve_attention). Float16 .npy keys and values stay float16 (io::KVInput).
void read_qkv(Reader& in, AttendInputs& a) {
    a.q = in.tensor("q", 4), a.k = in.kv_tensor("k", 4), a.v = in.kv_tensor("v", 4);
    a.q = as_row_if_vector(std::move(a.q));  // one query
    if (!in.given("heads")) {
        if (in.given("kv-heads")) throw UsageError("--kv-heads G groups the query heads of --heads H: --heads is missing");
        return;
    }
    // Packed heads: ([B,] T, H·d) inputs, split here into ([B,] H, T, d) views.
    a.packed = true;
    a.heads_given = true;
    a.heads = std::size_t(integer_option(in.result(), "heads", 1, 65536, 1));
    a.kv_heads = std::size_t(integer_option(in.result(), "kv-heads", 1, 65536, (long long)a.heads));
    check_head_groups(a.heads, a.kv_heads);
    const auto check = [](const char* flag, const Shape& shape, std::size_t heads, const char* which) {
        if (shape.rank() > 3)
            throw InputError(std::string(flag) + " is " + shape.text() + ": with --heads it packs the heads side by " +
                             "side, ([B,] T, H·d); a 4-D input already has them (drop --heads)");
        if (shape.back(1) % heads != 0)
            throw InputError(std::string(flag) + " " + shape.text() + " has " + std::to_string(shape.back(1)) +
                             " columns, not a multiple of " + which + " " + std::to_string(heads) +
                             " (packed heads are column blocks of d each)");
    };
    check("-q", a.q.shape(), a.heads, "--heads");
    // Grouped-query K/V packed with fewer heads than Q: name the option that says so (for the
    // scores whose keys have the queries' d: dot and cosine; general and additive map d_k).
    const std::string score = in.result().count("score") ? in.result()["score"].as<std::string>() : "dot";
    const std::size_t d = a.q.shape().back(1) / a.heads, kcols = a.k.shape().back(1);
    if ((score == "dot" || score == "cosine") && !in.given("kv-heads") && kcols != a.q.shape().back(1) &&
        kcols % d == 0 && a.heads % (kcols / d) == 0) {
        const std::size_t g = kcols / d;
        throw InputError("-k " + a.k.shape().text() + " packs " + std::to_string(g) + (g == 1 ? " head" : " heads") +
                         " of d=" + std::to_string(d) + " beside -q's " + std::to_string(a.heads) + ": give --kv-heads " +
                         std::to_string(g) + " (grouped-query heads)");
    }
    check("-k", a.k.shape(), a.kv_heads, a.kv_heads == a.heads ? "--heads" : "--kv-heads");
    check("-v", a.v.shape(), a.kv_heads, a.kv_heads == a.heads ? "--heads" : "--kv-heads");
}

// --mask is boolean (nonzero = may attend), but PyTorch also takes a float attn_mask that is
// added (0 keep, -inf or -1e9 drop), which here would attend exactly where it meant to drop:
// -inf is refused (as every non-finite mask value) and a negative value noted, both pointing
// to --bias (and --attn-mask, which takes PyTorch's masks as they are).
MaskBits read_sdpa_mask(Reader& in) {
    if (!in.given("mask")) return {};
    io::MaskInput m;
    try {
        m = io::read_mask(in.path("mask"), io::MaskRules{});
    } catch (const InputError& e) {
        const std::string message = e.what();
        if (message.find("non-finite value '-") == std::string::npos) throw;
        throw InputError(message + " (--mask is boolean, nonzero = may attend; an additive mask of 0 and -inf belongs "
                                   "in --bias)");
    }
    bool negative = m.negative;
    for (std::size_t s = 0; m.values.rank() && s < m.values.slices() && !negative; ++s) {
        const MatrixView v = m.values.slice(s);
        for (std::size_t i = 0; i < v.rows && !negative; ++i)
            for (std::size_t j = 0; j < v.cols && !negative; ++j) negative = v(i, j) < 0;
    }
    if (negative)
        std::fprintf(stderr, "attn: note: --mask holds negative values, which may attend (nonzero = may attend); an "
                             "additive mask (0 keep, negative drop) belongs in --bias\n");
    return m.bits.rank() ? std::move(m.bits) : MaskBits(m.values.view());
}

// A mask in PyTorch's polarity, as nn.MultiheadAttention takes attn_mask and key_padding_mask:
// boolean (True = not allowed) when it is a bool or integer .npy, text written with True/False
// or a torch/NumPy print of an integer type (io::read_mask; or,
// `zero_one_text`, text of only 0 and 1: a key padding mask written by hand); a float mask is
// added to the scores: its bits when it holds only 0 and -inf (the same attention), else its
// values in `additive`.
MaskBits read_torch_mask(Reader& in, const char* opt, bool zero_one_text, Tensor* additive) {
    io::MaskInput m = io::read_mask(in.path(opt), io::MaskRules{true, true, zero_one_text});
    if (m.bits.rank()) return std::move(m.bits);
    if (m.boolean) return MaskBits(m.values.view()).inverted();
    *additive = std::move(m.values);
    return {};
}

// m's matrices as a tensor of `shape`, which has as many of them, of the same size.
Tensor with_slices(const Tensor& m, const Shape& shape) {
    Tensor out(shape, Tensor::Uninitialized{});
    for (std::size_t s = 0; s < m.slices(); ++s)
        for (std::size_t i = 0; i < m.rows(); ++i)
            std::copy_n(m.slice_data(s) + i * m.row_stride(), m.cols(), out.slice_data(s) + i * out.row_stride());
    return out;
}

// A (B, Tk) matrix as (B, 1, 1, Tk): row b for every head and query of batch item b.
Tensor per_batch_item(const Tensor& m) {
    Tensor out(Shape{m.rows(), 1, 1, m.cols()}, Tensor::Uninitialized{});
    for (std::size_t b = 0; b < m.rows(); ++b)
        std::copy_n(m.slice_data(0) + b * m.row_stride(), m.cols(), out.slice_data(b));
    return out;
}

// The batch items and query heads of the inputs, before the problem is resolved.
// The batch items and query heads of the inputs as the engine resolves them (its shapes only:
// one query head may serve several K/V heads); nothing when they do not fit, which resolving
// the problem reports.
std::optional<std::pair<std::size_t, std::size_t>> batch_and_heads(const AttendInputs& a) {
    if (a.embeddings) return std::pair{a.batch, a.heads};
    AttentionSpec spec;
    a.scores.fill(spec);
    try {
        const AttentionProblem p = resolve_attention(a.q_view(), a.k_view(), a.v_view(), spec);
        return std::pair{p.B, p.H};
    } catch (const ShapeError&) {
        return std::nullopt;
    }
}

// nn.MultiheadAttention's 3-D attn_mask is (B·H, Tq, Tk), batch item after batch item: with
// B > 1 it is read as (B, H, Tq, Tk). (H, Tq, Tk) broadcasts over the batch, as --mask does.
Shape torch_mask_shape(const Shape& s, const AttendInputs& a) {
    if (s.rank() != 3) return s;
    const auto bh = batch_and_heads(a);
    if (!bh || bh->first < 2 || s[0] != bh->first * bh->second) return s;
    return Shape{bh->first, bh->second, s[1], s[2]};
}

// --mask, --attn-mask and --key-padding-mask: one mask, a key allowed by each given.
// A float --attn-mask or --key-padding-mask is added to the scores as --bias is (a mask of 0 and
// -inf comes as bits: the same attention, and no Tq×Tk floats); one additive input at most.
void read_masks(Reader& in, AttendInputs& a) {
    MaskBits mask = read_sdpa_mask(in);
    std::string flags = mask.rank() ? "--mask" : "";  // the options that make up mask
    // mask and `more` (from option `flag`): a key allowed by both
    const auto add = [&](MaskBits more, const std::string& flag) {
        try {
            mask = mask.rank() ? MaskBits::both(mask, more) : std::move(more);
        } catch (const InputError& e) {
            throw InputError(flags + " and " + flag + ": " + e.what());
        }
        flags += (flags.empty() ? "" : " and ") + flag;
    };
    // An additive mask becomes the bias: one of 0 and -inf only is a mask (bits), which goes with
    // --bias; other values need a sum of two biases, which attn leaves to the user.
    const auto use_as_bias = [&](Tensor additive, const std::string& flag) {
        if (a.bias.rank())
            throw UsageError("a float " + flag + " with values other than 0 and -inf is added to the scores, as " +
                             a.bias_flag + " is: give one of them");
        a.bias = std::move(additive);
        a.bias_flag = flag;
    };
    if (in.given("attn-mask")) {
        Tensor additive;
        MaskBits bits = read_torch_mask(in, "attn-mask", false, &additive);
        if (additive.rank()) {
            const Shape shape = torch_mask_shape(additive.shape(), a);
            use_as_bias(shape == additive.shape() ? as_row_if_vector(std::move(additive)) : with_slices(additive, shape),
                        "--attn-mask");
        } else {
            const Shape shape = torch_mask_shape(bits.shape(), a);
            add(shape == bits.shape() ? std::move(bits) : bits.reshaped(shape), "--attn-mask");
        }
    }
    if (in.given("key-padding-mask")) {
        Tensor additive;
        MaskBits padding = read_torch_mask(in, "key-padding-mask", true, &additive);
        const Shape s = additive.rank() ? additive.shape() : padding.shape();
        if (s.rank() > 2)
            throw InputError("--key-padding-mask is " + s.dims_text() +
                             ": nn.MultiheadAttention's key_padding_mask is (B, Tk), True = padding");
        // One row per batch item, as nn.MultiheadAttention checks (other row counts would make a
        // batch of the inputs: a (Tq, Tk) mask given here by mistake); one row (1, Tk) serves
        // every batch item, as broadcasting has it.
        if (const auto bh = s.rank() == 2 && s[0] > 1 ? batch_and_heads(a) : std::nullopt; bh && s[0] != bh->first)
            throw InputError("--key-padding-mask is " + s.dims_text() + " but the inputs have " +
                             std::to_string(bh->first) + (bh->first == 1 ? " batch item" : " batch items") +
                             ": nn.MultiheadAttention's key_padding_mask is (B, Tk), one row per batch item (a mask "
                             "per query goes to --attn-mask)");
        // (B, Tk) serves every head and query of batch item b: (B, 1, 1, Tk).
        if (additive.rank()) {
            use_as_bias(s.rank() == 2 ? per_batch_item(additive) : as_row_if_vector(std::move(additive)),
                        "--key-padding-mask");
        } else {
            add(padding.reshaped(s.rank() == 2 ? Shape{s[0], 1, 1, s[1]} : Shape{1, s[0]}), "--key-padding-mask");
        }
    }
    if (!flags.empty()) a.mask_flag = flags.find(" and ") == std::string::npos ? flags : "the mask of " + flags;
    // A (Tk,) mask is one row, broadcast over the queries (as NumPy and PyTorch do).
    if (mask.rank() == 1) mask = mask.reshaped(Shape{1, mask.keys()});
    a.mask_bits = std::move(mask);
}

// --sinks (a vector of logits, finite or -inf, one per query head) and --segments (whole-number document
// ids, (T) or (B, T); npy integers or text); the problem checks them against the shapes.
void read_sinks_and_segments(Reader& in, AttendInputs& a) {
    const Tensor sinks = in.tensor("sinks", 2, io::Finite::allow_neg_inf);  // -inf: no sink for that head
    if (sinks.rank() == 2 && sinks.rows() != 1 && sinks.cols() != 1)
        throw InputError("--sinks is " + sinks.shape().dims_text() + ": expected a vector, one logit per query head");
    for (std::size_t k = 0; sinks.rank() && k < sinks.rows() * sinks.cols(); ++k)
        a.sinks.push_back(sinks.rank() == 2 && sinks.cols() == 1 ? sinks.slice_data(0)[k * sinks.row_stride()]
                                                                 : sinks.slice_data(0)[k]);
    const Tensor ids = in.tensor("segments", 2);
    if (!ids.rank()) return;
    a.segment_rows = ids.rank() == 2 ? ids.rows() : 1;
    // A column of Tk ids (one a line, as --sinks takes them) is the (Tk,) row: (B, Tk) ids of
    // one column would need Tk = 1.
    const std::size_t Tk = a.embeddings ? a.Tk : a.k_view().shape.back(2);
    const bool column = ids.rank() == 2 && ids.cols() == 1 && ids.rows() == Tk && Tk > 1;
    if (column) a.segment_rows = 1;
    else if (ids.rank() == 2 && ids.cols() == 1 && ids.rows() > 1 && Tk > 1)
        throw InputError("--segments is a column of " + plural(ids.rows(), "id") + " for " + plural(Tk, "key position") +
                         ": give one document id per key position");
    for (std::size_t r = 0; r < ids.rows(); ++r)
        for (std::size_t t = 0; t < ids.cols(); ++t) {
            const float v = ids.slice_data(0)[r * ids.row_stride() + t];
            if (v != std::floor(v) || std::fabs(v) > 16777216.0f) {  // float32 holds whole numbers to 2^24
                char shown[32];
                std::snprintf(shown, sizeof shown, "%g", double(v));
                throw InputError("--segments: entry " + std::to_string(r * ids.cols() + t) + " is " + shown +
                                 ", not a document id (a whole number, |id| <= 2^24)");
            }
            a.segments.push_back((long long)v);
        }
    if (a.segments.empty()) throw InputError("--segments holds no document ids");
}

// The options that project the output, which -q/-k/-v take too.
bool is_output_projection_option(const std::string& name) {
    return name == "wo" || name == "bo" || name == "out-proj" || name == "out-proj-bias" || name == "linear-layout";
}

// The flag that gave an input of the problem.
std::string flag_of(Role role, const AttendInputs& a) {
    switch (role) {
        case Role::queries: return a.embeddings ? "-x" : "-q";
        case Role::keys: return a.embeddings ? (a.kv.rank() ? "--kv" : "-x") : "-k";
        case Role::values: return a.embeddings ? (a.kv.rank() ? "--kv" : "-x") : "-v";
        case Role::mask: return a.mask_flag;
        case Role::bias: return a.bias_flag;
        case Role::lengths: return "--lengths";
        case Role::query_rows: return "--query-rows";
        case Role::batch_items: return "--batch-items";
        case Role::embeddings: return "-x";
        case Role::kv_embeddings: return a.kv.rank() ? "--kv" : "-x";
        case Role::wq: return "--wq";
        case Role::wk: return "--wk";
        case Role::wv: return "--wv";
        case Role::bq: return "--bq";
        case Role::bk: return "--bk";
        case Role::bv: return "--bv";
        case Role::wa: case Role::wa_q: case Role::wa_k: case Role::va: return score_flag(role);
        case Role::key_rows: return "--key-rows";
        case Role::sinks: return "--sinks";
        case Role::segments: return "--segments";
        case Role::offsets: return "--causal-offset";
        case Role::past_keys: return "--past-k";
        case Role::past_values: return "--past-v";
    }
    return "?";
}

// The engine's ShapeError in the words of the options that gave the inputs.
std::string flagged_message(const ShapeError& e, const AttendInputs& a) {
    const std::string flag = flag_of(e.role, a), other = flag_of(e.other, a);
    const std::string& dim = e.dimension;
    if (!score_flag(e.role).empty()) return flag + ": " + e.what() + " (" + other + ")";
    if (e.role == Role::mask || e.role == Role::bias) {
        const Shape& t = e.role == Role::mask ? a.mask_bits.shape() : a.bias.shape();
        std::string scores, names;
        for (std::size_t d = 0; d < e.against.rank(); ++d) {
            scores += (d ? "x" : "") + std::to_string(e.against[d]);
            names += (d ? " x " : "") + e.against_axes[d];
        }
        return flag + " is " + t.dims_text() + " but the scores are " + scores + " (" + names +
               (e.against.rank() > 2 ? "; dimensions equal or 1, the last one Tk" : "") + ")";
    }
    if (e.role == Role::lengths && dim == "batch") {
        // A batch-first (B, T, d) tensor from a tutorial reads as heads: say how to give a batch.
        const bool heads_not_batch = !a.embeddings && e.wanted == 1 && a.q.rank() == 3;
        return "--lengths gives " + plural(e.got, "length") + " but there " +
               (e.wanted == 1 ? "is 1 batch item" : "are " + std::to_string(e.wanted) + " batch items") +
               (heads_not_batch ? " (a 3-D -q is H×Tq×d_k, heads; a batch is 4-D, B×H×Tq×d_k, with H=1 for one head)"
                                : "");
    }
    if (e.role == Role::lengths) {
        std::size_t b = 0;
        while (b + 1 < a.lengths.size() && a.lengths[b] <= e.wanted) ++b;
        return "--lengths: batch item " + std::to_string(b) + " has length " + std::to_string(e.got) +
               " but there are only " + plural(e.wanted, "key");
    }
    if (e.role == Role::sinks || e.role == Role::segments || e.role == Role::past_keys ||
        e.role == Role::past_values)
        return flag + ": " + e.what();
    if (dim == "rank") return flag + " is a vector: " + (e.role == Role::keys ? "keys are Tk×d_k" : "values are Tk×d_v");
    if (dim == "d_k") return flag + " has d_k=" + std::to_string(e.got) + " but " + other + " has d_k=" + std::to_string(e.wanted);
    if (dim == "length")
        return flag + " has " + plural(e.got, "row") + " but " + other + " has " + std::to_string(e.wanted) +
               ": every key needs a value";
    const std::string shapes = "-q " + a.q.shape().text() + ", -k " + a.k.shape().text() + ", -v " + a.v.shape().text();
    if (dim == "batch")
        return "batch sizes do not broadcast: " + shapes + " (dimension -4 must be equal, 1 or missing)";
    if (dim == "heads" && e.role == Role::values)
        return "-k and -v have different head counts: -k " + a.k.shape().text() + ", -v " + a.v.shape().text();
    if (dim == "heads")
        return "-q has " + plural(e.got, "head") + " but -k/-v have " + std::to_string(e.wanted) + ": -q " +
               a.q.shape().text() + ", -k " + a.k.shape().text() +
               " (grouped-query attention needs the query heads to be a multiple of the key/value heads)";
    return e.what();
}

// The attention problem of the inputs, resolved by the engine's one validator; for -x, on
// the shapes of the projected heads (nothing is computed yet). Sizes come from it.
void resolve_problem(AttendInputs& a) {
    AttentionSpec spec;
    const TensorView bias = a.bias.view();
    spec.mask_bits = a.mask_bits.rank() ? &a.mask_bits : nullptr;
    spec.bias = a.bias.rank() ? &bias : nullptr;
    spec.lengths = a.lengths;
    spec.sinks = a.sinks;
    spec.segments = a.segments, spec.segment_rows = a.segment_rows;
    spec.past = a.past;
    a.scores.fill(spec);
    try {
        if (a.embeddings) {
            if (a.cache.k.rank()) {  // the cache (an empty one too) against the projected heads (KVCache)
                check_cache(a.cache.k.shape, a.batch, a.kv_heads, a.d_k, Role::past_keys);
                check_cache(a.cache.v.shape, a.batch, a.kv_heads, a.projections.d_v, Role::past_values);
            }
            spec.head_axis = a.heads_given ? HeadAxis::always : HeadAxis::never;
            const std::size_t d_v = a.projections.d_v;
            auto heads = [&](std::size_t H, std::size_t T, std::size_t d) {
                TensorView v;  // a shape only: resolving reads no data of Q, K or V
                v.shape = a.batched ? Shape{a.batch, H, T, d} : Shape{H, T, d};
                return v;
            };
            a.problem = resolve_attention(heads(a.heads, a.Tq, a.d_k), heads(a.kv_heads, a.Tk, a.d_k),
                                          heads(a.kv_heads, a.Tk, d_v), spec);
        } else {
            a.problem = resolve_attention(a.q_view(), a.k_view(), a.v_view(), spec);
        }
    } catch (const ShapeError& e) {
        throw InputError(flagged_message(e, a));
    }
    const AttentionProblem& p = a.problem;
    a.Tq = p.Tq, a.Tk = p.Tk, a.d_k = p.dk, a.batch = p.B, a.heads = p.H, a.kv_heads = p.G;
    a.batched = p.batch_dim;
    a.head_dim = p.head_dim;
}

}  // namespace

TensorView AttendInputs::q_view() const { return packed ? split_heads(q, heads) : q.view(); }
KVView AttendInputs::k_view() const { return packed && !kv_split ? split_heads(k.view(), kv_heads) : k.view(); }
KVView AttendInputs::v_view() const { return packed && !kv_split ? split_heads(v.view(), kv_heads) : v.view(); }

const std::vector<const char*>& projection_options() {
    static const std::vector<const char*> opts = {"wq", "wk", "wv", "bq", "bk", "bv", "wo", "bo", "kv", "heads",
                                                  "kv-heads", "linear-layout", "in-proj", "in-proj-bias",
                                                  "out-proj", "out-proj-bias"};
    return opts;
}

AttendInputs read_attend_inputs(const cxxopts::ParseResult& r, InputNames& names) {
    bool self = r.count("x") > 0;
    const bool cross = r.count("q") || r.count("k") || r.count("v");
    std::string projection, input_projection;  // the first option given of each kind
    for (const char* o : projection_options()) {
        if (!r.count(o)) continue;
        if (projection.empty()) projection = flag_of(o);
        // --heads/--kv-heads split packed -q/-k/-v too.
        const bool packing = cross && (std::string(o) == "heads" || std::string(o) == "kv-heads");
        if (input_projection.empty() && !is_output_projection_option(o) && !packing) input_projection = flag_of(o);
    }
    if (self && cross) throw UsageError("-x/--wq/--wk/--wv and -q/-k/-v are two different forms: use one");
    if (cross && !input_projection.empty())
        throw UsageError(input_projection + " projects embeddings (-x); with -q/-k/-v the heads are dimension -3 "
                         "of the tensors and only the output is projected (--wo/--bo, --out-proj)");
    if (cross && r.count("linear-layout") && !r.count("wo") && !r.count("out-proj"))
        throw UsageError("--linear-layout reads --wo as nn.Linear.weight (out×in): --wo FILE is missing");
    if (self && r.count("linear-layout") && !r.count("wq") && !r.count("wk") && !r.count("wv") && !r.count("wo"))
        throw UsageError("--linear-layout reads --wq/--wk/--wv/--wo as nn.Linear.weight (out×in): none of them is given");
    if (cross && r.count("pos")) throw UsageError("--pos adds positions to the embeddings -x: with -q/-k/-v they are already projected");
    if (!self && !cross && !projection.empty()) throw UsageError(projection + " projects embeddings: -x FILE is missing");
    if (!self && !cross) throw UsageError("no input: give -x FILE (self-attention) or -q, -k and -v (see --help)");
    if (cross)
        for (const char* o : {"q", "k", "v"})
            if (!r.count(o)) throw UsageError(std::string("-") + o + " FILE is missing (cross-attention needs -q, -k and -v)");

    // Every input on '-' is claimed before any is read: a second one is a usage error up front,
    // not whatever reading the first one's bytes as the other input would say.
    for (const char* o : {"x", "q", "k", "v", "kv", "wq", "wk", "wv", "bq", "bk", "bv", "wo", "bo", "in-proj",
                          "in-proj-bias", "out-proj", "out-proj-bias", "mask", "attn-mask", "key-padding-mask", "bias", "lengths", "sinks", "segments", "labels",
                          "key-labels", "wa", "wa-q", "wa-k", "va", "past-k", "past-v"})
        if (r.count(o) && io::reads_standard_input(r[o].as<std::string>()))
            names.reserve_stdin(flag_of(o), r[o].as<std::string>());

    AttendInputs a;
    Reader in(r, names);
    a.embeddings = self;
    if (self) {
        read_embeddings(in, a);
    } else {
        check_output_projection_options(in);
        read_qkv(in, a);
    }
    prepend_cache(r, names, a);
    if (a.sinusoidal) {
        add_positions(a.x, a.past);
        if (a.kv.rank()) add_positions(a.kv, a.past);
    }
    store_kv(r, a);
    // A (Tk,) bias is one row, broadcast over the queries (as NumPy and PyTorch do).
    a.bias = as_row_if_vector(in.tensor("bias", 4, io::Finite::allow_neg_inf));
    a.scores = read_score_weights(r, names);
    read_masks(in, a);  // after the scores: a 3-D --attn-mask's reading depends on the problem's shapes
    if (r.count("lengths")) {
        const std::string text = r["lengths"].as<std::string>();
        a.lengths = parse_lengths(text == "-" ? names.claim(text, "--lengths") : text);
    }
    read_sinks_and_segments(in, a);
    resolve_problem(a);
    if (!self) read_output_projection(in, a, a.problem.dv);

    a.query_labels = in.labels("labels");
    a.key_labels = in.labels("key-labels");
    if (!a.key_labels.empty() && a.key_labels.size() != a.Tk)
        throw InputError("--key-labels has " + plural(a.key_labels.size(), "label") + " but there are " +
                         plural(a.Tk, "key"));
    if (!a.query_labels.empty()) {
        // --labels alone names the keys too when there are as many (self-attention).
        if (a.query_labels.size() != a.Tq && a.query_labels.size() != a.Tk)
            throw InputError("--labels has " + plural(a.query_labels.size(), "label") + " but there are " +
                             std::to_string(a.Tq) + (a.Tq == 1 ? " query" : " queries") + " and " + plural(a.Tk, "key"));
        if (a.key_labels.empty() && a.query_labels.size() == a.Tk) a.key_labels = a.query_labels;
        if (a.query_labels.size() != a.Tq) a.query_labels.clear();
    }
    return a;
}

}  // namespace attn::cli
