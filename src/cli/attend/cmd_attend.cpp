// attn attend: self-, cross-, multi-head and grouped-query attention on tensors read from
// files. Inputs are read in attend_inputs, resolved and computed by the engine
// (attn/problem.hpp, attn/multihead.hpp), printed and drawn in attend_outputs; this file
// declares the options and wires them together.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/viz.hpp"
#include "attn/multihead.hpp"
#include "cli/attend/attend_inputs.hpp"
#include "cli/attend/attend_options.hpp"
#include "cli/attend/attend_outputs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/option_values.hpp"
#include "write/output_file.hpp"
#include "runtime/did_you_mean.hpp"

namespace attn::cli {

namespace {

void declare_options(cxxopts::Options& options) {
    options.add_options("Inputs (FILE is text or .npy; '-' = standard input, at most once; FILE.npz:NAME, "
                        "FILE.csv:NAME, FILE.json:NAME one result of several, -:NAME one of standard input's)")
        ("x", "Embeddings X (T×D, or B×T×D for a batch); Q = X·W_q + b_q, K = X·W_k + b_k, V = X·W_v + b_v",
         cxxopts::value<std::string>(), "FILE")
        ("pos", "sinusoidal: add Vaswani's position table (attn positions) to -x, and to --kv, before the "
                "projections (positions 0, 1, ...; P, P + 1, ... after a cache of P keys, --past-k); without it "
                "attention is permutation-equivariant", cxxopts::value<std::string>(),
         "sinusoidal")
        ("kv", "Embeddings for keys and values (T_kv×D_kv, or B×T_kv×D_kv): cross-attention, K = KV·W_k, "
               "V = KV·W_v (default: -x)", cxxopts::value<std::string>(), "FILE")
        ("heads", "Query heads H (default 1): the columns of Q are H blocks of d_k; results get a head dimension. "
                  "With -q/-k/-v, inputs ([B,] T, H·d) hold the heads side by side (ONNX's 3-D form, PyTorch's "
                  "(B, T, H·d) before .view(B, T, H, d)) and are split; without it a 3-D -q is (H, T, d)",
         cxxopts::value<std::string>(), "H")
        ("kv-heads", "Key/value heads G (default H; H a multiple of G): query head h reads key/value head "
                     "h/(H/G) (grouped-query; 1 = multi-query)", cxxopts::value<std::string>(), "G")
        ("wq", "Query projection W_q (D×(H·d_k)); identity when omitted", cxxopts::value<std::string>(), "FILE")
        ("wk", "Key projection W_k (D_kv×(G·d_k)); identity when omitted", cxxopts::value<std::string>(), "FILE")
        ("wv", "Value projection W_v (D_kv×(G·d_v)); identity when omitted", cxxopts::value<std::string>(), "FILE")
        ("bq", "Bias of Q: one row (or vector) of H·d_k entries", cxxopts::value<std::string>(), "FILE")
        ("bk", "Bias of K: G·d_k entries", cxxopts::value<std::string>(), "FILE")
        ("bv", "Bias of V: G·d_v entries", cxxopts::value<std::string>(), "FILE")
        ("wo", "Output projection W_O ((H·d_v)×D_out): output = concat(heads)·W_O + b_O; with -x, or with "
               "-q/-k/-v (their H heads, dimension -3, side by side)",
         cxxopts::value<std::string>(), "FILE")
        ("bo", "Bias of the output: D_out entries", cxxopts::value<std::string>(), "FILE")
        ("linear-layout", "Read --wq/--wk/--wv/--wo as nn.Linear.weight (out×in), as in a PyTorch state_dict. "
                          "Without it, a square weight from a PyTorch file (.bin/.pt/.pth, or *.weight of a "
                          "safetensors file with format pt) is read as in×out with a warning on stderr")
        ("in-proj", "nn.MultiheadAttention's in_proj_weight (3E×E, [W_q; W_k; W_v] in nn.Linear layout) or GPT-2's "
                    "c_attn.weight (E×3E, [W_q | W_k | W_v] in x·W layout), told apart by shape; "
                    "replaces --wq/--wk/--wv", cxxopts::value<std::string>(), "FILE")
        ("in-proj-bias", "Its bias: in_proj_bias or c_attn.bias (3E entries)", cxxopts::value<std::string>(), "FILE")
        ("out-proj", "nn.MultiheadAttention's out_proj.weight (E×E, nn.Linear layout); replaces --wo",
         cxxopts::value<std::string>(), "FILE")
        ("out-proj-bias", "nn.MultiheadAttention's out_proj.bias (E entries)", cxxopts::value<std::string>(), "FILE")
        ("q", "Queries Q (Tq×d_k, or H×Tq×d_k, or B×H×Tq×d_k)", cxxopts::value<std::string>(), "FILE")
        ("k", "Keys K (Tk×d_k, G×Tk×d_k or B×G×Tk×d_k); leading dimensions broadcast as in torch.matmul "
              "(equal, 1 or missing); G heads with H a multiple of G: grouped-query",
         cxxopts::value<std::string>(), "FILE")
        ("v", "Values V (Tk×d_v, with the leading dimensions of K); a float16 .npy K and V ('<f2') stay float16 in memory (--kv-dtype)", cxxopts::value<std::string>(), "FILE")
        ("labels", "Token labels, one per line, for the queries (and the keys when there are as many); csv and "
                   "tsv then carry a header row and a label column, and still read back into attn as the matrix "
                   "they label (unless the first labels are numbers)",
         cxxopts::value<std::string>(), "FILE")
        ("key-labels", "Token labels for the keys when they differ from the queries' (Tq != Tk)",
         cxxopts::value<std::string>(), "FILE");
    options.add_options("Attention")
        ("score", "Score function s(q, k), scores = scale·s: dot (q·k); general (q·W_a·kᵀ, Luong; --wa); additive "
                  "(v_aᵀ·tanh(q·W_q + k·W_k), Bahdanau, d2l's AdditiveAttention; --wa-q, --wa-k, --va; computed "
                  "through the Tq×Tk scores); cosine (q·k/(|q|·|k|), 0 for a zero vector). Weights are shared by "
                  "every head and batch item", cxxopts::value<std::string>()->default_value("dot"), "NAME")
        ("wa", "W_a of --score general (d_q×d_k)", cxxopts::value<std::string>(), "FILE")
        ("wa-q", "W_q of --score additive (d_q×h, in×out: a bias-free nn.Linear's weight transposed)",
         cxxopts::value<std::string>(), "FILE")
        ("wa-k", "W_k of --score additive (d_k×h, in×out)", cxxopts::value<std::string>(), "FILE")
        ("va", "v_a of --score additive (h entries: nn.Linear(h, 1).weight)", cxxopts::value<std::string>(), "FILE")
        ("scale", "auto = 1/sqrt(d_k) (d_k per head) for --score dot and general, 1 for additive and cosine; "
                  "none = 1; or a number",
         cxxopts::value<std::string>()->default_value("auto"), "S")
        ("causal", "Causal mask: top-left (default; query i sees keys j <= i, PyTorch is_causal) or "
                   "bottom-right (j <= i + Tk - Tq, decoding with a cache; with --lengths each batch item's own "
                   "j <= i + length - Tq, ONNX's nonpad_kv_seqlen rule). Use --causal or --causal=ALIGN",
         cxxopts::value<std::string>()->implicit_value("top-left"), "ALIGN")
        ("causal-offset", "Causal mask at an offset (implies --causal): query i of batch item b sees keys "
                          "j <= i + N_b (ONNX's causal offset); N for every item or N,N,... one per batch item; "
                          "negative allowed (a row may see no key). The window, ALiBi and RoPE use p = i + N_b",
         cxxopts::value<std::string>(), "N[,...]")
        ("past-k", "A K/V cache (ONNX's past_key, HF's past_key_values): the P cached keys as they enter the "
                   "scores (after --rope), prepended to the new ones: with -q/-k/-v ([B,] G, P, d) before -k; with "
                   "-x ([B,] [G,] P, d_k) as --show keys prints them (B for a batched -x, G with --heads) or "
                   "(B, G, P, d_k), before the projected keys. The queries' offset becomes P (--causal, either "
                   "alignment, is j <= i + P; the window is at p = i + P; RoPE rotates the new queries and keys at "
                   "P..., never the cache), and --show keys,values give the present cache (ONNX's "
                   "present_key/present_value), to pass back as --past-k/--past-v for the next tokens. An empty "
                   "cache (P = 0, the first step's) in an .npy file is no cache (not from standard input or an "
                   "archive). A non-empty cache excludes --causal-offset, --lengths and --key-rows",
         cxxopts::value<std::string>(), "FILE")
        ("past-v", "The cached values ([B,] G, P, d_v), or with -x as --show values prints them, prepended to "
                   "the new values (with --past-k)",
         cxxopts::value<std::string>(), "FILE")
        ("kv-dtype", "Keep K and V (and the cache) in memory as f32, f16, bf16 (torch.bfloat16) or q8_0 (ggml's "
                     "blocks of 32 int8 values and one float16 scale, rows padded to whole blocks with zeros), as "
                     "inference engines keep their K/V cache: values read as float32 are rounded (to nearest even) "
                     "or quantised when stored (K with --rope after its rotation, as engines cache it), and the "
                     "attention is that of the stored values. Default: as read "
                     "(float16 .npy and F16/BF16 safetensors stay so, everything else float32). --show "
                     "kv-error reports what the storing cost against float32 K/V. With -x, the projected K and V "
                     "are kept so, and with --past-k/--past-v the whole present cache",
         cxxopts::value<std::string>(), "TYPE")
        ("softmax-precision", "f32 (default) or f64: each row's softmax computed in float64 (ONNX's "
                              "softmax_precision; through the Tq×Tk matrix, not the fused kernel)",
         cxxopts::value<std::string>(), "P")
        ("window", "Sliding window, ONNX's left and right sizes: the query at position p sees key j iff "
                   "p-L <= j <= p+R; R omitted (or L empty, as :R) is unbounded, so --causal --window W-1 is "
                   "Mistral's sliding_window=W. p = i + the causal offset: i, i + Tk - Tq with --causal=bottom-right "
                   "(i + length - Tq with --lengths), i + N with --causal-offset N, i + P with a cache. Masked cells "
                   "are -inf, as for --mask", cxxopts::value<std::string>(), "L[:R]")
        ("softcap", "Logit softcap (Gemma 2, Grok): scores x become C·tanh(x/C), after the scale and before "
                    "--bias and the masks; 0 = none. Order of operations: (RoPE on Q and K,) scale·s(q, k) "
                    "(--score), softcap, + ALiBi + bias, masks (causal, window, --mask, --lengths, --segments) set -inf, "
                    "softmax (with --sinks in the denominator), ·V",
         cxxopts::value<std::string>(), "C")
        ("rope", "RoPE (Llama, Qwen, Mistral): rotate Q and K per head after the projections, the query at "
                 "its position p (as --window's), key j at j; THETA is the base (rope_theta: 10000 Llama 2, "
                 "500000 Llama 3). Angles p·THETA^(-2k/N) in float32, as HF's apply_rotary_pos_emb",
         cxxopts::value<std::string>(), "THETA")
        ("rope-style", "half (HF Llama's rotate_half: dims k and k+N/2 paired; the default) or interleaved "
                       "(GPT-J, RoFormer: dims 2k and 2k+1)", cxxopts::value<std::string>(), "STYLE")
        ("rope-dims", "Rotate only the first N dims of each head (even, <= d_k; GPT-NeoX's rotary_pct·d_k); "
                      "default all d_k", cxxopts::value<std::string>(), "N")
        ("alibi", "ALiBi (BLOOM, MPT): add slope_h·(j - p) to the scores of head h, after the softcap and with "
                  "--bias; slopes as BLOOM's build_alibi_tensor, H not a power of two included")
        ("alibi-max-bias", "ALiBi's maximum bias B (ggml's max_bias): with n the largest power of two <= H, head "
                           "h < n has slope 2^(-B/n)^(h+1), head n+k 2^(-B/2n)^(2k+1); default 8 (BLOOM's)",
         cxxopts::value<std::string>(), "B")
        ("mask", "Boolean mask broadcast to (B, H, Tq, Tk), the last dimension Tk (e.g. Tq×Tk, or a (Tk,) vector for "
                 "every query): nonzero = may attend (PyTorch SDPA polarity; nn.MultiheadAttention's masks, True = "
                 "not allowed, go to --attn-mask and --key-padding-mask as they are)", cxxopts::value<std::string>(), "FILE")
        ("attn-mask", "PyTorch's attn_mask as nn.MultiheadAttention takes it: boolean (a bool or integer .npy, text of "
                      "True/False, or a tensor(...) or array(...) print of an integer type), True = may NOT attend; "
                      "or float, added to the scores (0 keep, -inf drop; not with --bias unless it holds only 0 and "
                      "-inf). Broadcast as --mask, but a 3-D one of B·H "
                      "matrices (B > 1 batch items of H query heads) is nn.MultiheadAttention's (B·H, Tq, Tk): one per "
                      "batch item and head. With --mask, a key must be allowed by both",
         cxxopts::value<std::string>(), "FILE")
        ("key-padding-mask", "PyTorch's key_padding_mask, (B, Tk) or (Tk): boolean (a bool or integer .npy, text of True/False "
                             "or of only 0 and 1, or a print of an integer type), True = padding (not "
                             "attended); or float, added to the scores as a float --attn-mask is (with the same rules)",
         cxxopts::value<std::string>(), "FILE")
        ("bias", "Additive bias broadcast to (B, H, Tq, Tk) as --mask, added to the scaled scores; -inf allowed",
         cxxopts::value<std::string>(), "FILE")
        ("lengths", "Valid keys per batch item, as a list such as 5,3 or a FILE of numbers (text or an .npy vector): "
                    "keys at index >= the length are masked for every query (key padding; PyTorch's key_padding_mask)",
         cxxopts::value<std::string>(), "LIST|FILE")
        ("sinks", "Attention sinks (gpt-oss's learned sinks): a FILE of one logit per query head (H values; -inf: "
                  "none for that head), "
                  "added to the softmax's denominator only: w_ij = exp(s_ij - m)/(exp(sink - m) + sum_j exp(s_ij - m)), "
                  "m the max over the scores and the sink (step 5 of the order above). Weights then sum to less than "
                  "1; a row with every key masked gets weights 0 and context 0 (with a sink of -inf, as --masked-rows "
                  "says); --show lse includes the sink. Not with --key-rows or --normalize sum, nor with "
                  "--masked-rows when every sink is finite",
         cxxopts::value<std::string>(), "FILE")
        ("segments", "Document ids, one per key position: a FILE of whole numbers (text or .npy, integer or "
                     "float), shape (Tk) for every batch item (a column of Tk ids too) or (B, Tk). "
                     "Query i sees key j only in its own document "
                     "(packed sequences: FlexAttention's document mask, FlashAttention's varlen); with --causal each "
                     "document is causal. A query takes the id at its position p = i + offset (i for self-attention; "
                     "i + P with a cache, i + N with --causal-offset N, i + Tk - Tq with --causal=bottom-right, i + "
                     "length - Tq with it and --lengths), as FlexAttention's document mask with a cache; a query whose "
                     "p is outside 0..Tk-1 is in no document and sees no key (a masked row, --masked-rows). When each "
                     "document is one run of positions "
                     "(0 0 1 1 2) the key blocks of other documents are skipped, not computed; ids in several runs "
                     "(0 1 0) follow the same rule through a Tq x Tk bit mask",
         cxxopts::value<std::string>(), "FILE")
        ("masked-rows", "A query row with every key masked gets: zero (weights and context 0, PyTorch >= 2.5), "
                        "nan, or uniform (mean of V, as JAX)",
         cxxopts::value<std::string>()->default_value("zero"), "POLICY")
        ("normalize", "softmax, or sum (divide each row by its sum; a zero sum is an error; rows of the weights (or "
                      "of their head mean) "
                      "left with negative entries are counted on stderr)",
         cxxopts::value<std::string>()->default_value("softmax"), "HOW")
        ("show", "Comma-separated: queries, keys, values (projected, per head; with --rope the queries and "
                 "keys after the rotation, as a K/V cache holds keys), scores (raw s(q, k): Q·Kᵀ for --score dot), scaled "
                 "(scale·Q·Kᵀ, softcapped, + ALiBi + bias, masked = -inf), capped (scale·Q·Kᵀ after the softcap, before "
                 "the bias, every cell), weights, weights-mean (mean over heads, "
                 "nn.MultiheadAttention's default), context (per head), output (heads concatenated, then "
                 "W_O + b_O when given), variance (diagnostics per batch item and head), kv-error (with --kv-dtype, per "
                 "batch item and head: the largest |difference| of the weights and of the context from those of "
                 "float32 K/V as read, and the context's relative RMS difference), lse (each query row's "
                 "log-sum-exp of the logits that enter the softmax, natural log, -inf for a fully masked row; "
                 "the context's shape without d_v). Context and output "
                 "alone come from the fused kernel (no Tq×Tk matrix); with scores, scaled, weights or "
                 "weights-mean they are computed through that matrix and agree with the fused result to "
                 "float32 rounding, not bit for bit",
         cxxopts::value<std::string>()->default_value("context"), "LIST");
    options.add_options("Sharding (the rows computed are bitwise identical to the same rows of the whole run)")
        ("query-rows", "Compute only query rows A to B-1 (causal masks use the global row index)",
         cxxopts::value<std::string>(), "A:B")
        ("batch-items", "Compute only batch items A to B-1", cxxopts::value<std::string>(), "A:B")
        ("key-rows", "Attend only to keys A to B-1 (A:A: none), each cell masked exactly as in the whole run "
                     "(global key indices for --causal, --window, --lengths, masks). Shards over keys, each with "
                     "--show context,lse, give the whole context with attn merge",
         cxxopts::value<std::string>(), "A:B");
    options.add_options("Pictures")
        ("heatmap", "Draw the weights in the terminal (colour on a terminal unless NO_COLOR is set; shade "
                    "characters otherwise; masked cells as ××), each head under a title; wider than $COLUMNS (else "
                    "the terminal, else 80) in column blocks, as the pretty tables, max-pooled to fit beyond 4 blocks. "
                    "Alone it replaces "
                    "the matrices; with an explicit --show it follows pretty output or output written with -o")
        ("svg", "Write an SVG heatmap of the weights (or of --svg-of) to FILE; several heads: a grid of heads "
                "with one colour scale. '-' is standard output: alone it is the whole output (no matrices); with "
                "--show the matrices go to -o", cxxopts::value<std::string>(), "FILE")
        ("svg-of", "Matrix drawn by --svg: scores, scaled or weights",
         cxxopts::value<std::string>()->default_value("weights"), "WHAT")
        ("head", "Draw only head h (0-based) in --heatmap, --svg and --html", cxxopts::value<std::string>(), "h")
        ("batch", "Draw only batch item b (0-based) in --heatmap, --svg and --html", cxxopts::value<std::string>(), "b");
    // ---- interactive HTML view (src/draw/html.cpp) ----
    options.add_options("Pictures")
        ("html", "Write an interactive HTML view of the weights to FILE: bertviz-style head view (hover a token; "
                 "heads in their colours, click to toggle), model view of every head, matrix view with a colour bar, "
                 "shape/scale/masking; one self-contained file, no network. "
                 "Beyond 2^22 weights each head is max-pooled into blocks (the page says so)",
         cxxopts::value<std::string>(), "FILE");
    add_output_options(options);
    add_exec_options(options);
}

// "scale 1/√d_k = 0.7071", "scale 1 (none)", "scale 0.5" for picture titles.
std::string scale_text(const std::string& given, std::size_t d_k, float scale, ScoreFunction score) {
    char buf[96];
    const bool unit = score == ScoreFunction::additive || score == ScoreFunction::cosine;
    if (given == "auto" && unit) std::snprintf(buf, sizeof buf, "%s scores, scale 1", score_name(score));
    else if (given == "auto") std::snprintf(buf, sizeof buf, "scale 1/\u221a%zu = %.4g", d_k, double(scale));
    else if (given == "none") std::snprintf(buf, sizeof buf, "unscaled");
    else std::snprintf(buf, sizeof buf, "scale %.4g", double(scale));
    return buf;
}

std::string masking_text(const AttendInputs& in, Causal causal, Window window) {
    std::string t;
    if (causal != Causal::none) t = std::string("causal (") + causal_name(causal) + ")";
    if (window.bounded()) {
        const auto side = [](std::size_t n) { return n == unbounded ? std::string("∞") : std::to_string(n); };
        t += std::string(t.empty() ? "" : " + ") + "window " + side(window.left) + ":" + side(window.right);
    }
    if (in.mask_bits.rank()) t += std::string(t.empty() ? "" : " + ") + "mask";
    if (in.bias.rank()) t += std::string(t.empty() ? "" : " + ") + "bias";
    if (!in.lengths.empty()) t += std::string(t.empty() ? "" : " + ") + "lengths";
    if (!in.segments.empty()) t += std::string(t.empty() ? "" : " + ") + "documents";
    return t;
}

// --rope, --rope-style, --rope-dims, --alibi and --alibi-max-bias into s.
void parse_positions(const cxxopts::ParseResult& r, const AttendInputs& in, AttendSettings& s, const Show& show) {
    for (const char* o : {"rope-style", "rope-dims"})
        if (r.count(o) && !r.count("rope"))
            throw UsageError(std::string("--") + o + " shapes RoPE's rotation: --rope THETA is missing");
    if (r.count("alibi-max-bias") && !r["alibi"].as<bool>())
        throw UsageError("--alibi-max-bias sets ALiBi's slopes: --alibi is missing");
    if (r.count("rope") && in.scores.score != ScoreFunction::dot)
        throw UsageError(std::string("--rope rotates Q and K for dot-product scores: drop --score ") +
                         score_name(in.scores.score) + " or --rope");
    if (r.count("rope")) {
        s.rope.theta = parse_rope_theta(r["rope"].as<std::string>());
        if (r.count("rope-style")) s.rope.style = parse_rope_style(r["rope-style"].as<std::string>());
        s.rope.dims = rope_dims(r.count("rope-dims") ? std::optional(r["rope-dims"].as<std::string>()) : std::nullopt, in.d_k);
        s.rope.keys_as = in.keys_after_rope;  // --kv-dtype's type, K left as read by store_kv
    }
    if (r["alibi"].as<bool>())
        s.alibi = r.count("alibi-max-bias") ? parse_alibi_max_bias(r["alibi-max-bias"].as<std::string>()) : 8.0f;
    if (show.variance && (s.alibi != 0.0f || s.rope.theta != 0.0f))
        throw UsageError("--show variance compares the scaled scores with their theory, which has no positions: drop "
                         "--alibi, --rope or variance");
}

// A range option checked against its extent.
Range range_option(const cxxopts::ParseResult& r, const char* opt, std::size_t extent, const char* what) {
    if (!r.count(opt)) return {0, 0};
    const std::string flag = std::string("--") + opt;
    const Range range = parse_range(r[opt].as<std::string>(), flag);
    if (range.end > extent)
        throw UsageError("invalid " + flag + " '" + r[opt].as<std::string>() + "': there " +
                         (extent == 1 ? "is 1 " : "are " + std::to_string(extent) + " ") + what);
    return range;
}


// The query rows [A, B) of dimension -2 (when narrow_rows) and the batch items [A, B) of
// dimension 0 when that is a batch dimension of more than one item, of an input shown with
// the results (no copy).
TensorView computed_part(TensorView v, const Range& rows, bool narrow_rows, const Range& items, bool has_batch) {
    if (!v.rank()) return v;
    auto narrow = [&v](std::size_t axis, const Range& r) {
        v.data += r.begin * v.strides[axis];
        v.shape[axis] = r.end - r.begin;
    };
    if (narrow_rows && v.rank() >= 2) narrow(v.rank() - 2, rows);
    if (has_batch && v.shape[0] > 1) narrow(0, items);
    return v;
}

// A per-head view (…, H, T, d) as an input of that form is shown: without its batch axis (extent
// 1) unless `batch`, without its heads axis (extent 1) unless `heads`.
TensorView shown_heads(TensorView v, bool batch, bool heads) {
    const auto drop = [&v](std::size_t axis) {
        for (std::size_t i = axis; i + 1 < v.rank(); ++i) v.strides[i] = v.strides[i + 1];
        std::vector<std::size_t> dims = v.shape.to_vector();
        dims.erase(dims.begin() + std::ptrdiff_t(axis));
        v.shape = Shape(dims);
    };
    if (v.rank() == 4 && !batch && v.shape[0] == 1) drop(0);
    if (v.rank() >= 3 && !heads && v.shape[v.rank() - 3] == 1) drop(v.rank() - 3);
    return v;
}

// --show kv-error: the weights and context of the stored K/V (res.problem's), and both results
// of the float32 ones, q, k and v (as read or projected; with --rope, K not rounded after its
// rotation either).
void compare_with_float32(AttendResults& res, const AttentionSpec& spec, const TensorView& q, const KVView& k,
                          const KVView& v) {
    AttentionWants both;
    both.weights = both.context = true;
    res.stored = batched_attention(res.problem, both);
    AttentionSpec as_read = spec;
    as_read.rope.keys_as = ElementType::f32;
    res.reference = batched_attention(resolve_attention(q, k, v, as_read), both);
}

// The engine run on the inputs: multi-head attention from embeddings (-x), or attention on
// Q/K/V resolved once (attn/problem.hpp), then (output_shown, or W_O or b_O given) the heads side
// by side and W_O. Shown with --rope, the queries and keys are rotated, as they enter the scores
// (and as a cache holds the keys).
AttendResults compute_attention(const AttendInputs& in, const AttendSettings& s, const AttentionWants& wants,
                                bool kv_shown, bool qk_shown, bool kv_error, bool output_shown) {
    AttendResults res;
    res.rows = s.rows.end ? s.rows : Range{0, in.Tq};
    res.items = s.items.end ? s.items : Range{0, in.batch};
    AttentionSpec spec;
    spec.scale = s.scale;
    spec.softcap = s.softcap;
    spec.causal = s.causal;
    spec.window = s.window;
    spec.rope = s.rope;
    spec.alibi = s.alibi;
    spec.normalize = s.normalize;
    spec.masked_rows = s.masked_rows;
    spec.lengths = in.lengths;
    spec.sinks = in.sinks;
    spec.segments = in.segments, spec.segment_rows = in.segment_rows;
    spec.offsets = s.offsets;
    spec.softmax_f64 = s.softmax_f64;
    if (!in.embeddings) spec.past = in.past;  // -x: the projections append to the cache (KVCache)
    in.scores.fill(spec);
    const TensorView bias = in.bias.view();
    spec.mask_bits = in.mask_bits.rank() ? &in.mask_bits : nullptr;
    spec.bias = in.bias.rank() ? &bias : nullptr;
    if (s.rows.end) spec.query_rows = {s.rows.begin, s.rows.end};
    if (s.items.end) spec.batch_items = {s.items.begin, s.items.end};
    if (s.keys) spec.key_rows = {s.keys->begin, s.keys->end};
    auto opt = [](const Tensor& t, const TensorView& v) { return t.rank() ? &v : nullptr; };
    const TensorView wo = in.wo.view(), bo = in.bo.view();

    if (in.embeddings) {
        // Without --heads, one head and results without a head dimension (2-D in, 2-D out).
        spec.head_axis = in.heads_given ? HeadAxis::always : HeadAxis::never;
        const TensorView x = in.x.view(), kv = in.kv.view();
        const TensorView wq = in.wq.view(), wk = in.wk.view(), wv = in.wv.view();
        const TensorView bq = in.bq.view(), bk = in.bk.view(), bv = in.bv.view();
        MultiheadWeights w;
        w.heads = in.heads, w.kv_heads = in.kv_heads;
        w.wq = opt(in.wq, wq), w.wk = opt(in.wk, wk), w.wv = opt(in.wv, wv), w.wo = opt(in.wo, wo);
        w.bq = opt(in.bq, bq), w.bk = opt(in.bk, bk), w.bv = opt(in.bv, bv), w.bo = opt(in.bo, bo);
        w.kv_type = in.projected_kv;
        res.multihead = multihead_attention(x, in.kv.rank() ? &kv : nullptr, w, spec, wants, in.past ? &in.cache : nullptr);
        res.problem = res.multihead.problem;
        res.attention = std::move(res.multihead.attention);
        const Multihead& mh = res.multihead;
        // Projections per head (a strided view) with --heads; as projected without. With a cache,
        // the keys and values are the present cache.
        TensorView q = in.heads_given ? split_heads(mh.queries, in.heads) : mh.queries.view();
        TensorView k = in.past ? shown_heads(mh.present_keys.view(), in.batched, in.heads_given)
                     : in.heads_given ? split_heads(mh.keys, in.kv_heads) : mh.keys.view();
        TensorView v = in.past ? shown_heads(mh.present_values.view(), in.batched, in.heads_given)
                       : in.heads_given ? split_heads(mh.values, in.kv_heads) : mh.values.view();
        // Kept as --kv-dtype: shown as kept (widened), as -k/-v are (K with RoPE below, rotated).
        if (mh.stored_keys.rank() && kv_shown) {
            res.keys_f32 = to_float(mh.stored_keys.view());
            k = shown_heads(res.keys_f32.view(), in.batched, in.heads_given);
        }
        if (mh.stored_values.rank() && kv_shown) {
            res.values_f32 = to_float(mh.stored_values.view());
            v = shown_heads(res.values_f32.view(), in.batched, in.heads_given);
        }
        if (kv_error) {  // against the float32 keys and values (with a cache, the present cache)
            AttentionSpec as_problem = spec;
            as_problem.past = in.past;
            compare_with_float32(res, as_problem, split_heads(mh.queries, in.heads),
                                 in.past ? mh.present_keys.view() : split_heads(mh.keys, in.kv_heads),
                                 in.past ? mh.present_values.view() : split_heads(mh.values, in.kv_heads));
        }
        if (qk_shown && res.problem.rope.theta != 0.0f) {
            rotated_queries_keys(res.problem, res.queries_rotated, res.keys_rotated);
            q = shown_heads(res.queries_rotated.view(), in.batched, in.heads_given);
            k = shown_heads(res.keys_rotated.view(), in.batched, in.heads_given);
        }
        res.queries = computed_part(q, res.rows, true, res.items, in.batched);
        res.keys = computed_part(k, res.rows, false, res.items, in.batched);
        res.values = computed_part(v, res.rows, false, res.items, in.batched);
        res.output = mh.output.view();
    } else {
        res.problem = resolve_attention(in.q_view(), in.k_view(), in.v_view(), spec);
        res.attention = batched_attention(res.problem, wants);
        if (kv_error) compare_with_float32(res, spec, in.q_view(), in.kv_f32[0].view(), in.kv_f32[1].view());
        // Float16 keys and values are widened only when they are shown themselves.
        if (kv_shown && in.k.half()) res.keys_f32 = to_float(in.k_view());
        if (kv_shown && in.v.half()) res.values_f32 = to_float(in.v_view());
        TensorView k = in.k.half() ? res.keys_f32.view() : in.k_view().f32();
        const TensorView v = in.v.half() ? res.values_f32.view() : in.v_view().f32();
        // An input has a batch dimension when it has four (packed: three).
        TensorView q = in.q_view();
        if (qk_shown && res.problem.rope.theta != 0.0f) {  // shaped as given, unless RoPE's positions split the batch
            rotated_queries_keys(res.problem, res.queries_rotated, res.keys_rotated);
            const TensorView rq = res.queries_rotated.view(), rk = res.keys_rotated.view();
            q = shown_heads(rq, q.rank() == 4 || rq.shape[0] > 1, q.rank() >= 3 || rq.shape[1] > 1);
            k = shown_heads(rk, k.rank() == 4 || rk.shape[0] > 1, k.rank() >= 3 || rk.shape[1] > 1);
        }
        res.queries = computed_part(q, res.rows, true, res.items, q.rank() == 4);
        if (k.rank()) res.keys = computed_part(k, res.rows, false, res.items, k.rank() == 4);
        if (v.rank()) res.values = computed_part(v, res.rows, false, res.items, v.rank() == 4);
        // The heads side by side (and W_O): two copies of the context, made only when shown, or
        // to check a W_O or b_O given.
        if (res.attention.context.rank() && (output_shown || in.wo.rank() || in.bo.rank())) {
            res.projected = project_output(res.attention.context.view(), res.problem.head_dim,
                                           res.problem.batch_dim, opt(in.wo, wo), opt(in.bo, bo));
            res.output = res.projected.output.view();
        }
    }
    const BatchedAttention& att = res.attention;
    res.batch = res.items.end - res.items.begin;
    res.heads = att.heads, res.kv_heads = att.kv_heads;
    res.masked_rows = att.masked_rows;
    res.head_dim = res.problem.head_dim;
    res.scores = att.scores.view(), res.scaled = att.scaled.view(), res.weights = att.weights.view();
    res.capped = att.capped.view();
    res.weights_mean = att.weights_mean.view(), res.context = att.context.view();
    res.lse = att.lse.view();
    return res;
}

}  // namespace

int cmd_attend(int argc, char** argv) {
    cxxopts::Options options("attn attend",
                             "Scaled dot-product attention: softmax(scale·Q·Kᵀ + bias, masked)·V, per head and batch "
                             "item.\nSelf- or cross-attention from embeddings (-x [--kv], projections, --heads, W_O: "
                             "nn.MultiheadAttention) or\nfrom Q, K, V given directly (-q/-k/-v, any leading "
                             "dimensions, grouped-query heads).");
    options.custom_help("(-x FILE [--kv FILE] [--heads H] [PROJECTIONS] | -q FILE -k FILE -v FILE) [OPTIONS]");
    declare_options(options);
    auto parsed = parse_or_help(options, argc, argv);
    if (!parsed) return exit_ok;
    const auto& r = *parsed;
    io::OutputOptions out = output_options(r);
    const std::optional<long long> head = integer_option(r, "head", 0, 65535);
    const std::optional<long long> batch = integer_option(r, "batch", 0, std::numeric_limits<int>::max());
    const bool heatmap = r["heatmap"].as<bool>();
    const bool show_given = r.count("show") > 0;
    // `--svg -` without -o or --show: the SVG is the whole of standard output. (`-o -` asks for
    // the matrices on standard output too: that is the mix refused below, not the SVG alone.)
    const bool matrices_to_stdout = out.path.empty() && (show_given || r.count("output"));
    const bool svg_alone = r.count("svg") && is_standard_stream(r["svg"].as<std::string>()) && out.path.empty() && !show_given &&
                           !r.count("output");
    // --heatmap alone draws only the picture; with --show it joins pretty (or -o) output.
    const Show show = (heatmap || svg_alone) && !show_given ? Show{} : parse_show(r["show"].as<std::string>());
    if (svg_alone && r.count("format"))
        throw UsageError("--svg - alone prints no matrices, so --format has nothing to format: add --show and -o");
    check_heatmap_output(heatmap, show_given, r.count("format") > 0, out);
    // Several matrices as npy: refused before the run, not after it (the records, variance and
    // kv-error, are refused by the writer, which names them).
    io::check_npy_output(out, std::size_t(std::count_if(show.order.begin(), show.order.end(), [](const std::string& s) {
                                  return s != "variance" && s != "kv-error";
                              })));
    PictureOptions pic;
    pic.line_width = terminal_columns();
    pic.of = r["svg-of"].as<std::string>();
    if (pic.of != "scores" && pic.of != "scaled" && pic.of != "weights")
        throw UsageError("invalid --svg-of '" + pic.of + "': expected scores, scaled or weights" +
                         did_you_mean(pic.of, {"scores", "scaled", "weights"}));
    if (r.count("svg-of") && !r.count("svg")) throw UsageError("--svg-of chooses what --svg draws: --svg FILE is missing");
    const bool svg = r.count("svg") > 0;
    const std::string svg_file = svg ? svg_path(r["svg"].as<std::string>(), heatmap || matrices_to_stdout,
                                                "other output", "send the matrices to a file with -o FILE (without --heatmap)")
                                     : "";
    const std::string html_file = r.count("html") ? html_path(r["html"].as<std::string>()) : "";  // before any work
    for (const char* o : {"head", "batch"})
        if (r.count(o) && !heatmap && !svg && !r.count("html"))
            throw UsageError(std::string("--") + o + " chooses what --heatmap or --svg draws: neither is given");

    InputNames names;
    const AttendInputs in = read_attend_inputs(r, names);

    AttendSettings s;
    // "auto": the score function's default, as the library resolved it (default_scale_of).
    s.scale = r["scale"].as<std::string>() == "auto" ? in.problem.scale : parse_scale(r["scale"].as<std::string>(), in.d_k);
    if (r.count("causal")) s.causal = parse_causal(r["causal"].as<std::string>());
    if (r.count("softcap")) s.softcap = parse_softcap(r["softcap"].as<std::string>());
    if (r.count("window")) s.window = parse_window(r["window"].as<std::string>());
    if (r.count("causal-offset")) {
        if (s.causal == Causal::bottom_right)
            throw UsageError("--causal-offset sets the causal frontier itself: drop --causal=bottom-right");
        s.offsets = parse_causal_offsets(r["causal-offset"].as<std::string>());
        if (s.offsets.size() != 1 && s.offsets.size() != in.batch)
            throw UsageError("--causal-offset has " + std::to_string(s.offsets.size()) + " offsets for " +
                             std::to_string(in.batch) + " batch items: give one, or one per batch item");
        s.causal = Causal::top_left;  // the rule j <= i + offset
    }
    if (r.count("softmax-precision")) s.softmax_f64 = parse_softmax_precision(r["softmax-precision"].as<std::string>());
    if (show.variance && in.scores.score != ScoreFunction::dot)
        throw UsageError(std::string("--show variance compares q·k with its theory for dot-product scores: drop --score ") +
                         score_name(in.scores.score) + " or variance");
    if (show.variance && s.softcap != 0.0f)
        throw UsageError("--show variance compares the scaled scores with their theory, which has no softcap: drop "
                         "--softcap or variance");
    parse_positions(r, in, s, show);
    s.masked_rows = parse_masked_rows(r["masked-rows"].as<std::string>());
    s.normalize = parse_normalize(r["normalize"].as<std::string>());
    s.rows = range_option(r, "query-rows", in.Tq, in.Tq == 1 ? "query row" : "query rows");
    if (r.count("batch-items") && !in.batched)
        throw UsageError("--batch-items selects batch items, but no input has a batch dimension");
    s.items = range_option(r, "batch-items", in.batch, in.batch == 1 ? "batch item" : "batch items");
    if (r.count("key-rows")) {
        s.keys = parse_range(r["key-rows"].as<std::string>(), "--key-rows", true);
        if (s.keys->end > in.Tk)
            throw UsageError("invalid --key-rows '" + r["key-rows"].as<std::string>() + "': there " +
                             (in.Tk == 1 ? "is 1 key" : "are " + std::to_string(in.Tk) + " keys"));
        if (show.output)
            throw UsageError("--show output with --key-rows: a shard's output cannot be merged (W_O mixes the "
                             "heads); merge the shards' --show context,lse with attn merge, then project");
    }
    if (!in.sinks.empty() && s.keys)
        throw UsageError("--sinks with --key-rows: a sink is counted once per row, and each shard's lse would count it "
                         "again; compute sinks over all the keys");
    if (!in.sinks.empty() && show.variance)
        throw UsageError("--show variance compares softmax weights that sum to 1 with their theory, which has no "
                         "sinks: drop --sinks or variance");
    if (!in.sinks.empty() && s.normalize != Normalization::softmax)
        throw UsageError("--sinks with --normalize sum: sinks join the softmax's denominator");
    // It was ignored (from an audit); a head whose sink is -inf has none, and its rows may be masked.
    const bool every_sink_finite =
        !in.sinks.empty() && std::all_of(in.sinks.begin(), in.sinks.end(), [](float x) { return std::isfinite(x); });
    if (every_sink_finite && r.count("masked-rows"))
        throw UsageError("--masked-rows with --sinks: no row has every key masked, since every head's sink is finite "
                         "and in every row (a row that sees no key gets weights 0 and context 0): drop --masked-rows");
    if (show.lse && s.normalize != Normalization::softmax)
        throw UsageError("--show lse is the softmax's log-sum-exp: --normalize sum has none");
    if (s.softmax_f64 && s.normalize != Normalization::softmax)
        throw UsageError("--softmax-precision f64 computes the softmax in float64: --normalize sum has none");

    if (head) {
        if (!in.head_dim) throw UsageError("--head chooses a head, but there is no head dimension (see --heads)");
        if (std::size_t(*head) >= in.heads)
            throw UsageError("invalid --head " + std::to_string(*head) + ": heads are 0 to " + std::to_string(in.heads - 1));
        pic.head = int(*head);
    }
    if (batch) {
        const Range items = s.items.end ? s.items : Range{0, in.batch};
        if (!in.batched) throw UsageError("--batch chooses a batch item, but no input has a batch dimension");
        if (std::size_t(*batch) < items.begin || std::size_t(*batch) >= items.end)
            throw UsageError("invalid --batch " + std::to_string(*batch) + ": the batch items computed are " +
                             std::to_string(items.begin) + " to " + std::to_string(items.end - 1));
        pic.batch = int(*batch);
    }
    // One SVG element per cell: beyond this the file runs to tens of MB and no viewer helps.
    constexpr std::size_t max_svg_cells = 512 * 512;
    // (One matrix alone is max-pooled by svg_heatmap instead: the limit is for grids of heads.)
    const std::size_t one_slice = (s.rows.end ? s.rows.end - s.rows.begin : in.Tq) * in.Tk;
    if (svg && picture_cells(in, s, pic) > one_slice && picture_cells(in, s, pic) > max_svg_cells)
        throw UsageError("--svg draws one cell per query-key pair and head: " + std::to_string(picture_cells(in, s, pic)) +
                         " cells are more than 512x512 (choose one with --head/--batch, or fewer --query-rows)");
    if (s.causal != Causal::none && in.Tq != in.Tk && s.offsets.empty() && in.lengths.empty() && !in.past)
        std::fprintf(stderr, "attn: note: Tq=%zu != Tk=%zu: causal mask aligned %s (query i sees keys j <= %s)\n", in.Tq,
                     in.Tk, causal_name(s.causal), s.causal == Causal::top_left ? "i" : "i + Tk - Tq");

    AttentionWants wants;
    wants.scores = show.scores || show.variance || (svg && pic.of == "scores");
    wants.scaled = show.scaled || (svg && pic.of == "scaled");
    wants.capped = show.capped;
    wants.weights = show.weights || show.variance || heatmap || (svg && pic.of == "weights") || r.count("html");
    wants.weights_mean = show.weights_mean;
    wants.context = show.context || show.output || show.kv_error;
    if (show.kv_error && !r.count("kv-dtype"))
        throw UsageError("--show kv-error compares K/V stored as --kv-dtype with float32: --kv-dtype is missing");
    wants.lse = show.lse;
    const AttendResults res = compute_attention(in, s, wants, show.keys || show.values || show.variance,
                                                show.queries || show.keys, show.kv_error, show.output);
    check_results(show, in, res, s);
    check_masked_rows(in, res);

    const VarianceTable variance = show.variance ? variance_table(in, s, res) : VarianceTable{};
    const VarianceTable kv_error = show.kv_error ? kv_error_table(in, res) : VarianceTable{};
    const std::vector<io::Item> items = show_items(show, in, res, variance, kv_error);
    add_json_labels(out, in, res);
    pic.scale_text = scale_text(r["scale"].as<std::string>(), in.d_k, s.scale, in.scores.score);
    pic.masking_text = masking_text(in, s.causal, s.window);
    // Every output of the run goes out in one all-or-nothing step (write/output_file.hpp): when
    // one of them fails, nothing is on standard output and no new file is left behind.
    std::vector<io::detail::PendingFile> files;
    if (svg) files.push_back({svg_file, svg_picture(in, res, pic)});
    if (r.count("html")) {  // ---- interactive HTML view ----
        files.push_back({html_file, html_picture(in, res, pic)});
    }
    if (!items.empty())
        for (auto& f : io::detail::output_files(items, out)) files.push_back(std::move(f));
    if (heatmap)
        files.push_back({"", (items.empty() || !out.path.empty() ? "" : "\n") +
                                 heatmap_pictures(in, res, pic, viz::want_color(stdout_is_terminal()))});
    io::detail::write_files(files);
    report_masked_rows(res.masked_rows, s.masked_rows);
    if (s.normalize == Normalization::sum && (res.weights.data || res.weights_mean.data))
        report_negative_sum_rows(res.weights.data ? res.weights : res.weights_mean);  // what the run kept
    return exit_ok;
}

}  // namespace attn::cli
