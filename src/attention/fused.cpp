// The fused schedule: the streaming kernel over (batch item, K/V head group, query block) units.
#include "attention/schedules.hpp"

#include <algorithm>
#include <vector>

#include "attn/ops.hpp"
#include "attention/kernel_vocabulary.hpp"
#include "kernels/kernel_api.hpp"
#include "arch/kernel_table.hpp"
#include "runtime/parallel.hpp"

namespace attn::engine {

namespace {

// Query rows per fused work unit: enough units to keep every thread busy; a multiple of
// every arch's query block. Each row is computed the same way in any unit (the kernel's
// lanes are independent), so the choice never changes the bits.
std::size_t fused_rows_per_unit(const AttentionProblem& p, std::size_t heads_per_unit) {
    const std::size_t rows = p.r1 - p.r0, per_item = (p.b1 - p.b0) * (p.H / heads_per_unit);
    const std::size_t threads = current_threads();
    return rows * per_item >= 1024 * threads ? 256 : 64;
}

// The query heads of a group can be stacked into one Q of group·Tq rows when every row of
// every head sees the same keys and scores (no causal rule or window, no mask, bias or ALiBi
// slopes, sinks or documents: only the batch item's key limit) and the heads' rows and outputs are evenly spaced (Q heads not broadcast, all rows
// computed). Then each K/V tile is loaded once for all the heads that share it; the rows
// come out bit for bit as head by head (the kernel computes every row independently).
bool can_stack_heads(const AttentionProblem& p) {
    return p.group() > 1 && p.causal == Causal::none && !p.window.bounded() && !p.has_mask && !p.has_bias &&
           p.alibi_slopes.empty() && p.sinks.empty() && !p.doc_rows && p.q.H == p.H &&
           p.q.sH == p.Tq * p.q.sT && p.r0 == 0 && p.r1 == p.Tq;
}

}  // namespace

std::size_t run_fused(const AttentionProblem& p, Tensor& context, Tensor* lse) {
    // The stacked rows of the heads are contiguous in the context, not in an lse padded per head.
    const bool stacked = can_stack_heads(p) && !lse;
    // A unit computes `heads` query heads over query rows [r0, r1) of its (stacked) Q.
    const std::size_t group = p.group(), heads = stacked ? 1 : group, Tq = stacked ? group * p.Tq : p.Tq;
    const std::size_t r0 = stacked ? 0 : p.r0, r1 = stacked ? Tq : p.r1;
    const std::size_t rpu = fused_rows_per_unit(p, group);
    const std::size_t first = r0 / rpu, last = r1 == r0 ? first : (r1 - 1) / rpu + 1;
    const std::size_t blocks = last - first, items = p.b1 - p.b0;
    const std::size_t units = items * p.G * blocks;
    std::vector<std::size_t> masked(units, 0);
    const auto flash = kernels::table_of(current_arch()).flash;
    const std::size_t ldo = context.row_stride();
    // Unit u = ((b·G + g)·blocks + block); the costliest blocks (last, when causal) first.
    // Unstacked, one unit runs the query heads that share K/V head g back to back over the
    // same rows, so each K/V tile is fetched from memory once and reused from cache.
    parallel_for(units, [&](std::size_t u) {
        const std::size_t blk = blocks - 1 - u % blocks, g = (u / blocks) % p.G, b = p.b0 + u / blocks / p.G;
        const std::size_t rb = std::max(r0, (first + blk) * rpu), re = std::min(r1, (first + blk + 1) * rpu);
        for (std::size_t h = g * group; h < g * group + heads; ++h) {
            kernels::FlashArgs a{};
            a.Q = p.q.at(b, h), a.ldq = p.q.sT;
            a.K = p.k.element_at(b, g), a.ldk = p.k.sT;
            a.V = p.v.element_at(b, g), a.ldv = p.v.sT;
            a.kv_type = to_kernel(p.k.type);
            a.O = slice_of(context, p, b, h) + (rb - r0) * ldo, a.ldo = ldo;
            a.Tq = Tq, a.Tk = p.Tk, a.dk = p.dk, a.dv = p.dv;
            a.scale = p.scale;
            a.causal = to_kernel(p.causal);
            a.window = to_kernel(p.window);
            a.softcap = p.softcap;
            a.alibi_slope = p.alibi_slopes.empty() ? 0.0f : p.alibi_slopes[h];
            a.sink = p.sink(h);
            a.doc_begin = p.doc_begin(b), a.doc_end = p.doc_end(b);
            a.mask = p.has_mask ? p.mask_words.at(b, h) : nullptr, a.ldm = p.mask_words.sT;
            a.bias = p.has_bias ? p.bias.at(b, h) : nullptr, a.ldb = p.bias.sT;
            a.policy = to_kernel(p.masked_rows);
            a.row_begin = rb, a.row_end = re;
            a.key_limit = p.key_limit(b), a.key_first = p.k0, a.offset = p.offset(b);
            if (lse) a.lse = lse_of(lse, p, b, h) + (rb - r0);
            masked[u] += flash(a);
        }
    });
    std::size_t total = 0;
    for (std::size_t c : masked) total += c;
    return total;
}

}  // namespace attn::engine
