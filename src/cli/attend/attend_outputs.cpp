#include "cli/attend/attend_outputs.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "attn/diagnostics.hpp"
#include "attn/error.hpp"
#include "attn/html_view.hpp"
#include "attn/viz.hpp"
#include "attn/viz_grid.hpp"
#include "cli/common.hpp"
#include "tensor/finite_scan.hpp"
#include "runtime/parallel.hpp"

namespace attn::cli {

MatrixView slice_at(const TensorView& v, std::size_t b, std::size_t h, std::size_t heads) {
    const std::size_t r = v.rank();
    const std::size_t n_heads = r >= 3 ? v.shape[r - 3] : 1, n_batch = r >= 4 ? v.shape[r - 4] : 1;
    const std::size_t hh = n_heads == 1 ? 0 : h / (heads / n_heads);
    const std::size_t bb = n_batch == 1 ? 0 : b;
    const float* data = v.data;
    if (r >= 3) data += hh * v.strides[r - 3];
    if (r >= 4) data += bb * v.strides[r - 4];
    return {data, v.rows(), v.cols(), v.row_stride()};
}

namespace {

// The view as (B, H, T, d): a batch dimension (when `batched`) and a head dimension (when
// `head_dim`) of extent 1 and stride 0 are inserted where the rank rule left them out.
TensorView as_bhtd(const TensorView& v, bool batched, bool head_dim) {
    TensorView out;
    out.data = v.data;
    std::vector<std::size_t> dims;
    std::size_t k = 0, d = 0;
    auto keep = [&] { dims.push_back(v.shape[d]), out.strides[k++] = v.strides[d], ++d; };
    auto insert = [&] { dims.push_back(1), out.strides[k++] = 0; };
    batched ? keep() : insert();
    head_dim ? keep() : insert();
    while (d < v.rank()) keep();
    out.shape = Shape(dims);
    return out;
}

Matrix to_matrix(const MatrixView& m) {
    Matrix out(m.rows, m.cols);
    for (std::size_t i = 0; i < m.rows; ++i)
        for (std::size_t j = 0; j < m.cols; ++j) out(i, j) = m(i, j);
    return out;
}

// Heads per computed result: 1 without a head dimension.
std::size_t result_heads(const AttendResults& res) { return res.head_dim ? res.heads : 1; }

// The per-query view of a result as (B, H, Tq', ·), and the (b, h) slice of an input-shaped
// view (Q, K, V of the -q/-k/-v form broadcast as given).
struct SliceSource {
    TensorView view;
    bool result_shaped;
};
MatrixView slice_of(const SliceSource& src, const AttendInputs& in, const AttendResults& res, std::size_t b,
                    std::size_t h) {
    if (src.result_shaped)
        return slice_at(as_bhtd(src.view, in.batched, res.head_dim), b, h, result_heads(res));
    // Input-shaped: its batch dimension (if any, and not of extent 1) was narrowed to the
    // computed items; its head dimension may be G < H (grouped-query) or 1.
    return slice_at(src.view, b, h, res.heads);
}

std::string index_text(const AttendInputs& in, const AttendResults& res, std::size_t b, std::size_t h) {
    std::string t;
    if (in.batched) t += std::to_string(res.items.begin + b);
    if (res.head_dim) t += (t.empty() ? "" : ", ") + std::to_string(h);
    return "[" + t + "]";
}

const TensorView& picture_view(const AttendResults& res, const std::string& of) {
    return of == "scores" ? res.scores : of == "scaled" ? res.scaled : res.weights;
}

// The (b, h) pairs a picture draws: --batch / --head, or all.
std::vector<std::pair<std::size_t, std::size_t>> selection(const AttendResults& res, const PictureOptions& p) {
    std::vector<std::pair<std::size_t, std::size_t>> sel;
    for (std::size_t b = 0; b < res.batch; ++b)
        for (std::size_t h = 0; h < result_heads(res); ++h)
            if ((p.batch < 0 || std::size_t(p.batch) == res.items.begin + b) && (p.head < 0 || std::size_t(p.head) == h))
                sel.emplace_back(b, h);
    return sel;
}

viz::CellMask cell_mask_of(const AttendResults& res, std::size_t b, std::size_t h) {
    return [&res, b, h](std::size_t i, std::size_t j) { return !res.allowed(b, h, i, j); };
}

std::vector<std::string> row_range(const std::vector<std::string>& labels, const Range& rows) {
    if (labels.empty()) return {};
    return {labels.begin() + std::ptrdiff_t(rows.begin), labels.begin() + std::ptrdiff_t(rows.end)};
}

// The query rows of a picture: their labels, or, for a shard of the rows (--query-rows A:B),
// their numbers A to B-1 (a picture's own numbering starts at 0, which would name other rows).
std::vector<std::string> picture_rows(const std::vector<std::string>& labels, const Range& rows) {
    if (!labels.empty() || rows.begin == 0) return row_range(labels, rows);
    std::vector<std::string> numbers;
    for (std::size_t i = rows.begin; i < rows.end; ++i) numbers.push_back(std::to_string(i));
    return numbers;
}

// Whether row i of slice s of a result may hold NaN: under --masked-rows nan, rows with no
// allowed key (for per-head results, in that head; otherwise in any head).
using NanRowFn = std::function<bool(std::size_t s, std::size_t i)>;

// A result must be finite, except the NaN rows the user asked for and -inf in the scaled
// scores (where it marks masked entries). All threads first look for rows holding anything
// else (a Tq×Tk result is otherwise a serial pass as long as the kernel that made it); the
// first such value, in row order, is then found in those rows alone.
void check_finite(const TensorView& t, const char* name, bool allow_neg_inf, const NanRowFn& nan_row) {
    if (!t.rank() || t.slices() == 0) return;
    const std::size_t rows = t.slice(0).rows, cols = t.slice(0).cols, all_rows = t.slices() * rows;
    const std::size_t per_block = std::max<std::size_t>(1, (std::size_t(1) << 16) / std::max<std::size_t>(1, cols));
    const std::size_t blocks = (all_rows + per_block - 1) / per_block;
    const auto row_of = [&](std::size_t r) { return t.slice(r / rows).row(r % rows); };
    std::vector<char> flagged(blocks, 0);
    parallel_for(blocks, [&](std::size_t b) {
        for (std::size_t r = b * per_block; r < std::min(all_rows, (b + 1) * per_block) && !flagged[b]; ++r)
            flagged[b] = allow_neg_inf ? any_nan_or_pos_inf_f32(row_of(r), cols) : any_nonfinite_f32(row_of(r), cols);
    });
    for (std::size_t b = 0; b < blocks; ++b) {
        if (!flagged[b]) continue;
        for (std::size_t r = b * per_block; r < std::min(all_rows, (b + 1) * per_block); ++r) {
            const std::size_t s = r / rows, i = r % rows;
            if (nan_row && nan_row(s, i)) continue;
            const float* row = row_of(r);
            for (std::size_t j = 0; j < cols; ++j) {
                const float v = row[j];
                if (std::isfinite(v) || (allow_neg_inf && v < 0 && std::isinf(v))) continue;
                const std::string where = t.slices() > 1 ? " slice " + std::to_string(s) + "," : "";
                throw RuntimeFailure(std::string(name) + where + " row " + std::to_string(i) + ", column " +
                                     std::to_string(j) + " (0-based) is " + (std::isnan(v) ? "NaN" : "infinite") +
                                     ": the inputs overflow float32 (scale them down)");
            }
        }
    }
}

}  // namespace

void check_results(const Show& show, const AttendInputs& in, const AttendResults& res, const AttendSettings& s) {
    NanRowFn per_head, any_head;
    if (s.masked_rows == MaskedRowPolicy::nan) {
        const std::size_t H = result_heads(res), Tk = in.Tk;
        auto fully_masked = [&res, Tk](std::size_t b, std::size_t h, std::size_t i) {
            for (std::size_t j = 0; j < Tk; ++j)
                if (res.allowed(b, h, i, j)) return false;
            return true;
        };
        per_head = [fully_masked, H](std::size_t s, std::size_t i) { return fully_masked(s / H, s % H, i); };
        any_head = [fully_masked, H](std::size_t s, std::size_t i) {
            for (std::size_t h = 0; h < H; ++h)
                if (fully_masked(s, h, i)) return true;
            return false;
        };
    }
    if (show.queries) check_finite(res.queries, "queries", false, {});
    if (show.keys) check_finite(res.keys, "keys", false, {});
    if (show.values) check_finite(res.values, "values", false, {});
    check_finite(res.scores, "scores", false, {});
    check_finite(res.scaled, "scaled scores", true, {});
    check_finite(res.capped, "capped scores", false, {});
    check_finite(res.weights, "weights", false, per_head);
    check_finite(res.weights_mean, "mean weights", false, any_head);
    check_finite(res.context, "context", false, per_head);
    check_finite(res.lse, "lse", true, {});
    if (show.output) check_finite(res.output, "output", false, any_head);
}

void check_masked_rows(const AttendInputs& in, const AttendResults& res) {
    if (res.masked_rows == 0) return;  // nothing to explain (the usual case: no rule is evaluated)
    std::size_t truly_masked = 0;
    for (std::size_t b = 0; b < res.batch; ++b)
        for (std::size_t h = 0; h < res.heads; ++h)
            for (std::size_t i = 0; i < res.rows.end - res.rows.begin; ++i) {
                bool any = false;
                for (std::size_t j = 0; j < in.Tk && !any; ++j) any = res.allowed(b, h, i, j);
                truly_masked += !any;
            }
    if (res.masked_rows > truly_masked) {
        const std::size_t n = res.masked_rows - truly_masked;
        // Q·Kᵀ itself may overflow before a small scale would bring it back in range (the Tq×Tk
        // path scales after the product), hence "or". Toward −inf the row looks masked; +inf
        // and inf − inf make it NaN, which check_finite reports (kernels/masked_rows.hpp).
        throw RuntimeFailure("the scaled scores of " + std::to_string(n) + " row" + (n == 1 ? "" : "s") +
                             " overflow float32 (to ±inf or NaN, in Q·Kᵀ or after the scale): the inputs overflow "
                             "float32 (scale them down)");
    }
}

VarianceTable variance_table(const AttendInputs& in, const AttendSettings& s, const AttendResults& res) {
    VarianceTable table;
    const SliceSource q{res.queries, in.embeddings}, k{res.keys, in.embeddings};
    const SliceSource scores{res.scores, true}, weights{res.weights, true};
    const bool indexed = in.batched || res.head_dim;
    for (std::size_t b = 0; b < res.batch; ++b)
        for (std::size_t h = 0; h < result_heads(res); ++h) {
            const Matrix S = to_matrix(slice_of(scores, in, res, b, h));
            // The masking of this slice as an explicit mask (the causal rule, lengths, mask
            // and bias of the whole run, global row indices).
            Matrix mask(S.rows(), S.cols());
            for (std::size_t i = 0; i < S.rows(); ++i)
                for (std::size_t j = 0; j < S.cols(); ++j) mask(i, j) = res.allowed(b, h, i, j) ? 1.0f : 0.0f;
            ScoreMask sm;
            sm.scale = s.scale;
            sm.mask = &mask;
            const VarianceReport r = variance_report(to_matrix(slice_of(q, in, res, b, h)),
                                                     to_matrix(slice_of(k, in, res, b, h)), S,
                                                     to_matrix(slice_of(weights, in, res, b, h)), sm);
            auto fields = variance_fields(r);
            if (indexed) {
                fields.insert(fields.begin(), {"head", double(h)});
                fields.insert(fields.begin(), {"batch", double(res.items.begin + b)});
            }
            table.records.push_back(std::move(fields));
        }
    return table;
}

VarianceTable kv_error_table(const AttendInputs& in, const AttendResults& res) {
    VarianceTable table;
    const SliceSource w{res.stored.weights.view(), true}, w32{res.reference.weights.view(), true};
    // Both contexts from the same kind of run (weights and context wanted): the differences are
    // the stored K/V's alone (f32 gives 0), not the fused kernel's rounding against the other path.
    const SliceSource c{res.stored.context.view(), true}, c32{res.reference.context.view(), true};
    const bool indexed = in.batched || res.head_dim;
    for (std::size_t b = 0; b < res.batch; ++b)
        for (std::size_t h = 0; h < result_heads(res); ++h) {
            const MatrixView a = slice_of(w, in, res, b, h), a32 = slice_of(w32, in, res, b, h);
            const MatrixView x = slice_of(c, in, res, b, h), x32 = slice_of(c32, in, res, b, h);
            // A NaN in both (a fully masked row under --masked-rows nan: the same rows in both runs)
            // is no difference; a NaN in one is, and is kept.
            const auto both_nan = [](float p, float q) { return p != p && q != q; };
            double weights_max = 0, context_max = 0, diff2 = 0, ref2 = 0;
            for (std::size_t i = 0; i < a.rows; ++i)
                for (std::size_t j = 0; j < a.cols; ++j)
                    if (!both_nan(a(i, j), a32(i, j)))
                        weights_max = max_keeping_nan(weights_max, std::fabs(double(a(i, j)) - double(a32(i, j))));
            for (std::size_t i = 0; i < x.rows; ++i)
                for (std::size_t j = 0; j < x.cols; ++j) {
                    if (both_nan(x(i, j), x32(i, j))) continue;
                    const double d = double(x(i, j)) - double(x32(i, j));
                    context_max = max_keeping_nan(context_max, std::fabs(d));
                    diff2 += d * d, ref2 += double(x32(i, j)) * double(x32(i, j));
                }
            std::vector<std::pair<std::string, double>> fields{
                {"weights_max_abs_diff", weights_max},
                {"context_max_abs_diff", context_max},
                {"context_rel_rms_diff", ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2)}};
            if (indexed) {
                fields.insert(fields.begin(), {"head", double(h)});
                fields.insert(fields.begin(), {"batch", double(res.items.begin + b)});
            }
            table.records.push_back(std::move(fields));
        }
    return table;
}

void add_json_labels(io::OutputOptions& out, const AttendInputs& in, const AttendResults& res) {
    out.labels = row_range(in.query_labels, res.rows);
    out.key_labels = in.key_labels;
}

std::vector<io::Item> show_items(const Show& show, const AttendInputs& in, const AttendResults& res,
                                 const VarianceTable& variance, const VarianceTable& kv_error) {
    const std::vector<std::string> rows = row_range(in.query_labels, res.rows);
    const std::vector<std::string>& keys = in.key_labels;
    std::vector<io::Item> items;
    for (const std::string& name : show.order) {
        io::Item it;
        it.name = name;
        if (name == "variance" || name == "kv-error") {
            const VarianceTable& t = name == "variance" ? variance : kv_error;
            if (t.records.size() == 1 && !in.batched && !res.head_dim) it.fields = t.records[0];
            else it.records = t.records;
            items.push_back(std::move(it));
            continue;
        }
        const TensorView& v = name == "queries"        ? res.queries
                              : name == "keys"         ? res.keys
                              : name == "values"       ? res.values
                              : name == "scores"       ? res.scores
                              : name == "scaled"       ? res.scaled
                              : name == "capped"       ? res.capped
                              : name == "weights"      ? res.weights
                              : name == "weights-mean" ? res.weights_mean
                              : name == "context"      ? res.context
                              : name == "lse"          ? res.lse
                                                       : res.output;
        it = io::tensor_item(name, v);
        if (name == "keys" || name == "values") it.row_labels = keys;
        else if (name != "lse") it.row_labels = rows;
        if (name == "scores" || name == "scaled" || name == "capped" || name == "weights" || name == "weights-mean")
            it.col_labels = keys;
        items.push_back(std::move(it));
    }
    return items;
}

std::size_t picture_cells(const AttendInputs& in, const AttendSettings& s, const PictureOptions& p) {
    const std::size_t rows = s.rows.end ? s.rows.end - s.rows.begin : in.Tq;
    const std::size_t batch = p.batch >= 0 ? 1 : s.items.end ? s.items.end - s.items.begin : in.batch;
    const std::size_t heads = p.head >= 0 ? 1 : in.heads;
    return batch * heads * rows * in.Tk;
}

std::string heatmap_pictures(const AttendInputs& in, const AttendResults& res,
                             const PictureOptions& p, bool color) {
    const std::vector<std::string> rows = picture_rows(in.query_labels, res.rows);
    const auto sel = selection(res, p);
    const SliceSource src{res.weights, true};
    std::string out;
    for (const auto& [b, h] : sel) {
        const Matrix m = to_matrix(slice_of(src, in, res, b, h));
        if (in.batched || res.head_dim)
            out += (out.empty() ? "" : "\n") + std::string("weights ") + index_text(in, res, b, h) + ":\n";
        out += viz::heatmap_text(m, rows, in.key_labels, color, cell_mask_of(res, b, h), p.line_width);
    }
    return out;
}

// ---- interactive HTML view ----
std::string html_picture(const AttendInputs& in, const AttendResults& res,
                         const PictureOptions& p) {
    const auto sel = selection(res, p);
    const SliceSource src{res.weights, true};
    const bool indexed = in.batched || res.head_dim;
    // One 2-D slice per selected (batch, head), copied into a (slices, Tq, Tk) tensor.
    const MatrixView first = slice_of(src, in, res, sel[0].first, sel[0].second);
    // The page states the shape it shows: (B, H, Tq, Tk) when every batch item and head is
    // selected, else one slice per selected (batch, head).
    const std::size_t heads = result_heads(res);
    const bool grid = in.batched && res.head_dim && sel.size() == res.batch * heads && sel.size() > 1;
    Tensor t(grid      ? Shape{res.batch, heads, first.rows, first.cols}
             : indexed ? Shape{sel.size(), first.rows, first.cols}
                       : Shape{first.rows, first.cols});
    viz::HtmlViewOptions ho;
    for (std::size_t k = 0; k < sel.size(); ++k) {
        const auto [b, h] = sel[k];
        const MatrixView m = slice_of(src, in, res, b, h);
        for (std::size_t i = 0; i < m.rows; ++i)
            for (std::size_t j = 0; j < m.cols; ++j) t.slice_data(k)[i * t.row_stride() + j] = m(i, j);
        // Named as the page's other titles are: "batch 1, head 0" (index_text's "[1, 0]" names no axis).
        std::string name = in.batched ? "batch " + std::to_string(res.items.begin + b) : "";
        if (res.head_dim) name += (name.empty() ? "" : ", ") + std::string("head ") + std::to_string(h);
        ho.slice_names.push_back(indexed ? name : "weights");
    }
    // What the slices are: batch items without heads, or with one head each (--head) of
    // several batch items; else heads.
    const bool items = in.batched && (!res.head_dim || (p.head >= 0 && sel.size() > 1));
    if (grid) ho.dim_names = {"batch", "head"};
    else if (indexed) ho.dim_names = {items ? "batch" : "head"};
    // The batch items and heads the slices stand for (--head 1: head 1, --batch-items 1:3: 1 and 2).
    if (grid) {
        ho.dim_indices.resize(2);
        for (std::size_t b = 0; b < res.batch; ++b) ho.dim_indices[0].push_back(res.items.begin + b);
        for (std::size_t h = 0; h < heads; ++h) ho.dim_indices[1].push_back(h);
    } else if (indexed) {
        ho.dim_indices.resize(1);
        for (const auto& [b, h] : sel) ho.dim_indices[0].push_back(items ? res.items.begin + b : h);
    }
    ho.masked = [&res, sel](std::size_t k, std::size_t i, std::size_t j) {
        return !res.allowed(sel[k].first, sel[k].second, i, j);
    };
    ho.query_labels = picture_rows(in.query_labels, res.rows);
    ho.key_labels = in.key_labels;
    ho.scale_text = p.scale_text;
    ho.masking_text = p.masking_text;
    return viz::html_view(t.view(), ho);
}

std::string svg_picture(const AttendInputs& in, const AttendResults& res,
                        const PictureOptions& p) {
    const std::vector<std::string> rows = picture_rows(in.query_labels, res.rows);
    const auto sel = selection(res, p);
    const SliceSource src{picture_view(res, p.of), true};
    if (sel.size() == 1) {  // one slice: the plain heatmap, titled with its index
        const auto [b, h] = sel[0];
        viz::SvgHeatmapOptions so;
        so.what = p.of + (in.batched || res.head_dim ? " " + index_text(in, res, b, h) : "");
        so.row_labels = rows;
        so.col_labels = in.key_labels;
        so.scale_text = p.scale_text;
        so.masking_text = p.masking_text;
        so.masked = cell_mask_of(res, b, h);
        return viz::svg_heatmap(to_matrix(slice_of(src, in, res, b, h)), so);
    }
    std::vector<viz::GridPanel> panels;
    for (const auto& [b, h] : sel) {
        viz::GridPanel panel;
        panel.title = (in.batched ? "batch " + std::to_string(res.items.begin + b) + (res.head_dim ? " · " : "") : "") +
                      (res.head_dim ? "head " + std::to_string(h) : "");
        panel.values = to_matrix(slice_of(src, in, res, b, h));
        panel.masked = cell_mask_of(res, b, h);
        panels.push_back(std::move(panel));
    }
    viz::SvgGridOptions go;
    go.what = p.of;
    go.row_labels = rows;
    go.col_labels = in.key_labels;
    go.scale_text = p.scale_text;
    go.masking_text = p.masking_text;
    return viz::svg_grid(panels, go);
}

}  // namespace attn::cli
