// Attention sinks (gpt-oss; AttentionSpec::sinks) and documents (FlexAttention's document mask;
// AttentionSpec::segments) through every path of the engine (fused, materialised, split-K
// decoding), float32 and float16 K/V, and every arch this machine runs, against the float64
// oracle of double_reference.hpp (the sink as one more softmax column, dropped; key j visible to
// query i only when their ids are equal), on awkward shapes: documents of length 1, lane±1
// lengths, Tq = 1, rows with every key masked, with --window, --softcap and --alibi; Tq < Tk with
// causal offsets (per item) and a cache, the queries taking the id at their position. Also: the
// same bits for threads 1, 2 and 3 and any query-row range; the resolved problem's checks.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "attn/half.hpp"
#include "attn/multihead.hpp"
#include "attn/ops.hpp"
#include "double_reference.hpp"
#include "tensor_test_util.hpp"
#include "variant_test_util.hpp"

namespace {

using attn::Causal;
using attn::Shape;
using attn::Tensor;
using attn::unbounded;
using attn::Window;
using test_util::random_tensor;
using test_util::same_bits;
using test_util::slice_bh;
using test_util::check_same_bits_over_threads;
using test_util::Oracle;
using test_util::mismatches;
using test_util::slice_of;

struct Case {
    std::string name;
    Shape q, k, v;
    Causal causal = Causal::none;
    Window window;
    float softcap = 0.0f;
    float alibi = 0.0f;
    bool sinks = false;
    std::vector<std::size_t> runs;  // document lengths (ids 0, 1, …), the same for every item; empty: none
    bool per_item = false;          // one row of ids per batch item (item b's runs rotated by b)
    std::size_t interleave = 0;     // n > 0: ids (t / 5 + b) % n instead, documents in several runs
    std::vector<std::size_t> lengths;
    std::vector<long long> offsets;  // causal offsets (one, or per item): the queries' positions
    std::size_t past = 0;            // a K/V cache of this many keys (AttentionSpec::past: offset past)
    int policy = 0;  // 0 zero, 1 nan, 2 uniform
    bool half = false;  // float16 K/V
    // Whether a query-row range gives the whole run's bits. Not yet for split-K decoding when the
    // rows' visible keys differ (main too, without documents: attn attend --causal-offset 17
    // --query-rows 2:3 on Tq=3, Tk=20, B=2, avx2, differs by 1 ulp): a decode.hpp matter.
    bool ranges_bitwise = true;
};

Case named(std::string name) {
    Case c;
    c.name = std::move(name);
    return c;
}

std::vector<Case> cases() {
    std::vector<Case> c;
    Case a = named("sinks, H=3, Tq=Tk=37, odd d");
    a.q = {3, 37, 5}, a.k = {3, 37, 5}, a.v = {3, 37, 7}, a.sinks = true;
    c.push_back(a);
    Case m = named("sinks, window 0:0 with Tq>Tk: rows past Tk see nothing (weights 0 whatever the uniform policy)");
    m.q = {2, 40, 6}, m.k = {2, 30, 6}, m.v = {2, 30, 4}, m.window = {0, 0}, m.sinks = true, m.policy = 2;
    c.push_back(m);
    Case d = named("documents of length 1 and lane±1 (1,15,16,17,1,33,1), causal, per item, B=2 H=2");
    d.q = {2, 2, 84, 9}, d.k = {2, 2, 84, 9}, d.v = {2, 2, 84, 8}, d.causal = Causal::top_left;
    d.runs = {1, 15, 16, 17, 1, 33, 1}, d.per_item = true;
    c.push_back(d);
    Case all = named("documents + sinks + causal window 5 + softcap 10 + ALiBi, H=3");
    all.q = {3, 100, 16}, all.k = {3, 100, 16}, all.v = {3, 100, 16}, all.causal = Causal::top_left;
    all.window = {5, unbounded}, all.softcap = 10.0f, all.alibi = 8.0f, all.sinks = true;
    all.runs = {7, 1, 40, 52};
    c.push_back(all);
    Case nc = named("documents without causal, lengths 50 and 30 (padding rows see nothing), sinks, nan policy");
    nc.q = {2, 1, 60, 8}, nc.k = {2, 1, 60, 8}, nc.v = {2, 1, 60, 8}, nc.runs = {20, 20, 20}, nc.sinks = true;
    nc.lengths = {50, 30}, nc.policy = 1;
    c.push_back(nc);
    Case nm = named("documents, lengths cut a document off entirely (nan policy, no sink)");
    nm.q = nm.k = nm.v = {1, 1, 45, 8}, nm.runs = {20, 25}, nm.lengths = {18}, nm.policy = 1;
    nm.causal = Causal::bottom_right;
    c.push_back(nm);
    Case il = named("interleaved ids (0 0 0 0 0 1 1 …, each document in several runs: mask bits), causal, sinks, B=2");
    il.q = il.k = il.v = {2, 2, 70, 12}, il.causal = Causal::top_left, il.sinks = true, il.interleave = 3;
    il.per_item = true;
    c.push_back(il);
    Case id = named("interleaved ids, decode size Tq=Tk=4, no causal");
    id.q = id.k = id.v = {2, 4, 8}, id.runs = {1}, id.interleave = 2;
    c.push_back(id);
    Case big = named("tiles skipped: 8 documents of 90, causal, sinks, d=64, float16 K/V");
    big.q = {2, 720, 64}, big.k = {2, 720, 64}, big.v = {2, 720, 64}, big.causal = Causal::top_left;
    big.runs = std::vector<std::size_t>(8, 90), big.sinks = true, big.half = true;
    c.push_back(big);
    // Few query rows: split-K decoding, the sink counted once at the merge.
    Case dec = named("decode Tq=1, 2000 keys, gqa H=8 G=2, softcap 30, sinks");
    dec.q = {1, 8, 1, 64}, dec.k = {1, 2, 2000, 64}, dec.v = {1, 2, 2000, 64}, dec.causal = Causal::bottom_right;
    dec.softcap = 30.0f, dec.sinks = true;
    c.push_back(dec);
    Case dh = dec;
    dh.name = "decode Tq=1, float16 K/V, window 100, sinks", dh.half = true, dh.window = {100, unbounded};
    dh.softcap = 0.0f;
    c.push_back(dh);
    Case dd = named("decode Tq=Tk=4 documents 1,2,1 with sinks and ALiBi (H=3)");
    dd.q = dd.k = dd.v = {3, 4, 8}, dd.runs = {1, 2, 1}, dd.sinks = true, dd.alibi = 8.0f;
    c.push_back(dd);
    // Tq != Tk: one id per key position, the query at position i + offset taking the id there
    // (FlexAttention's document mask with a cache or offset).
    Case cache = named("decode Tq=1 through a cache of 40 (past), Tk=41, documents 10,1,25,5, causal, B=2 per item");
    cache.q = {2, 1, 1, 8}, cache.k = {2, 1, 41, 8}, cache.v = {2, 1, 41, 6}, cache.causal = Causal::top_left;
    cache.runs = {10, 1, 25, 5}, cache.per_item = true, cache.past = 40;
    c.push_back(cache);
    Case po = named("Tq=3 < Tk=20, offsets 17 and 5 per item, documents of length 1, causal, B=2 per item");
    po.q = {2, 1, 3, 8}, po.k = {2, 1, 20, 8}, po.v = {2, 1, 20, 8}, po.causal = Causal::top_left;
    po.runs = {1, 4, 1, 1, 6, 7}, po.per_item = true, po.offsets = {17, 5}, po.ranges_bitwise = false;
    c.push_back(po);
    Case br = named("Tq=12 < Tk=40 bottom-right, window 6, sinks, gqa H=4 G=2, documents 1,15,16,8");
    br.q = {1, 4, 12, 16}, br.k = {1, 2, 40, 16}, br.v = {1, 2, 40, 16}, br.causal = Causal::bottom_right;
    br.window = {6, unbounded}, br.sinks = true, br.runs = {1, 15, 16, 8};
    c.push_back(br);
    Case il2 = named("interleaved ids shared by the items, Tq=5 < Tk=33, offsets 28 and 10 per item, causal");
    il2.q = {2, 1, 5, 8}, il2.k = {2, 1, 33, 8}, il2.v = {2, 1, 33, 8}, il2.causal = Causal::top_left;
    il2.interleave = 3, il2.offsets = {28, 10};
    c.push_back(il2);
    Case ild = named("interleaved ids, decode Tq=2 through a cache of 20, no causal, float16 K/V");
    ild.q = {1, 2, 2, 8}, ild.k = {1, 2, 22, 8}, ild.v = {1, 2, 22, 8}, ild.interleave = 2, ild.past = 20;
    ild.half = true, ild.ranges_bitwise = false;
    c.push_back(ild);
    return c;
}

struct Inputs {
    Tensor Q, K, V;
    attn::HalfTensor Kh, Vh;  // float16 copies (half cases)
    std::vector<float> sinks;
    std::vector<std::vector<long long>> ids;  // per batch item (one row shared when !per_item)
    attn::AttentionSpec spec;
};

std::vector<long long> ids_of(const std::vector<std::size_t>& runs, std::size_t rotate) {
    std::vector<long long> ids;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const std::size_t len = runs[(r + rotate) % runs.size()];
        for (std::size_t t = 0; t < len; ++t) ids.push_back(100 + 7 * (long long)r);  // ids need not start at 0
    }
    return ids;
}

void make_inputs(const Case& c, unsigned seed, Inputs& in) {
    std::mt19937 rng(seed);
    in.Q = random_tensor(c.q, rng, 1.5f), in.K = random_tensor(c.k, rng, 1.5f), in.V = random_tensor(c.v, rng);
    const std::size_t H = c.q.rank() >= 3 ? c.q.back(3) : 1;
    const std::size_t B = c.q.rank() == 4 ? c.q[0] : 1;
    std::normal_distribution<float> dist(0.0f, 2.0f);
    if (c.sinks)
        for (std::size_t h = 0; h < H; ++h) in.sinks.push_back(dist(rng));
    in.spec.sinks = in.sinks;
    if (!c.runs.empty() || c.interleave) {
        for (std::size_t b = 0; b < (c.per_item ? B : 1); ++b) {
            in.ids.push_back(ids_of(c.runs, b));
            if (c.interleave) {
                in.ids.back().resize(c.k.back(2));
                for (std::size_t t = 0; t < c.k.back(2); ++t) in.ids.back()[t] = static_cast<long long>((t / 5 + b) % c.interleave);
            }
        }
        for (const auto& row : in.ids) in.spec.segments.insert(in.spec.segments.end(), row.begin(), row.end());
        in.spec.segment_rows = in.ids.size();
    }
    in.spec.causal = c.causal;
    in.spec.window = c.window;
    in.spec.softcap = c.softcap;
    in.spec.alibi = c.alibi;
    in.spec.lengths = c.lengths;
    in.spec.offsets = c.offsets;
    in.spec.past = c.past;
    in.spec.masked_rows = c.policy == 0 ? attn::MaskedRowPolicy::zero
                          : c.policy == 1 ? attn::MaskedRowPolicy::nan
                                          : attn::MaskedRowPolicy::uniform;
    if (c.half) {
        in.Kh = attn::to_half(in.K.view()), in.Vh = attn::to_half(in.V.view());
        in.K = attn::to_float(in.Kh.view()), in.V = attn::to_float(in.Vh.view());
    }
}

attn::BatchedAttention run(const Case& c, const Inputs& in, const attn::AttentionSpec& spec,
                           const attn::AttentionWants& w) {
    if (c.half) return attn::batched_attention(in.Q.view(), in.Kh.view(), in.Vh.view(), spec, w);
    return attn::batched_attention(in.Q.view(), in.K.view(), in.V.view(), spec, w);
}

Oracle oracle(const Case& c, const Inputs& in, std::size_t b, std::size_t h, std::size_t H, std::size_t G) {
    const std::size_t kv = h / (H / G);
    const attn::Matrix Q = slice_bh(in.Q, b, h), K = slice_bh(in.K, b, kv), V = slice_bh(in.V, b, kv);
    const std::size_t Tq = Q.rows(), Tk = K.rows();
    attn::Matrix mask(Tq, Tk, 1.0f);
    for (std::size_t i = 0; i < Tq; ++i)
        for (std::size_t j = 0; j < Tk; ++j)
            if (!c.lengths.empty() && j >= c.lengths[b]) mask(i, j) = 0.0f;
    test_ref::Spec s;
    s.scale = 1.0 / std::sqrt(double(Q.cols()));
    s.causal = c.causal == Causal::top_left ? 1 : c.causal == Causal::bottom_right ? 2 : 0;
    // Bottom-right with lengths: each item's own length − Tq (ONNX's nonpad_kv_seqlen rule).
    if (c.causal == Causal::bottom_right && !c.lengths.empty()) s.offset = (long long)c.lengths[b] - (long long)Tq;
    if (!c.offsets.empty()) s.offset = c.offsets[c.offsets.size() == 1 ? 0 : b];
    if (c.past) s.offset = (long long)c.past;
    s.mask = &mask;
    s.policy = c.policy;
    s.softcap = c.softcap;
    s.left = c.window.left == unbounded ? -1 : (long long)c.window.left;
    s.right = c.window.right == unbounded ? -1 : (long long)c.window.right;
    if (c.alibi != 0.0f) s.alibi_slope = attn::alibi_slopes(H, c.alibi)[h];
    if (c.sinks) s.sink = in.sinks[h];
    if (!in.ids.empty()) s.documents = &in.ids[c.per_item ? b : 0];
    Oracle o;
    o.weights = test_ref::attention(Q, K, V, s, &o.context, &o.masked);
    return o;
}

}  // namespace

TEST_CASE("sinks and documents: fused, materialised and split-K decoding match the float64 oracle, every arch") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        unsigned seed = 23;
        for (const Case& c : cases()) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name);
            Inputs in;
            make_inputs(c, seed++, in);
            const attn::BatchedAttention fused = run(c, in, in.spec, {});
            CHECK(fused.fused);
            CHECK(fused.split_keys == (c.q.back(2) <= attn::decode_max_rows));
            attn::AttentionWants all;
            all.weights = true;
            const attn::BatchedAttention mat = run(c, in, in.spec, all);
            const std::size_t B = fused.batch, H = fused.heads, G = fused.kv_heads;
            const double rel = 2e-5 + (c.softcap > 0 ? 4e-7 * c.softcap : 2e-6 * double(c.q.back(1)));
            std::size_t bad = 0, bad_w = 0, masked = 0, sums_below_one = 0, rows = 0;
            double worst = 0, worst_w = 0;
            for (std::size_t b = 0; b < B; ++b)
                for (std::size_t h = 0; h < H; ++h) {
                    const Oracle o = oracle(c, in, b, h, H, G);
                    masked += o.masked;
                    const std::size_t s = slice_of(c, b, h, H);
                    bad += mismatches(fused.context.slice_data(s), fused.context.row_stride(), o.context, 4.0, rel, &worst);
                    bad += mismatches(mat.context.slice_data(s), mat.context.row_stride(), o.context, 4.0, rel, &worst);
                    bad_w += mismatches(mat.weights.slice_data(s), mat.weights.row_stride(), o.weights, 1.0, rel, &worst_w);
                    for (std::size_t i = 0; i < o.weights.size(); ++i, ++rows) {
                        double sum = 0;
                        for (std::size_t j = 0; j < o.weights[i].size(); ++j)
                            sum += mat.weights.slice_data(s)[i * mat.weights.row_stride() + j];
                        sums_below_one += sum < 1.0 - 1e-7;
                    }
                }
            INFO("worst context error " << worst << ", weights " << worst_w << ", tolerance " << rel);
            CHECK(bad == 0);
            CHECK(bad_w == 0);
            CHECK(fused.masked_rows == masked);
            CHECK(mat.masked_rows == masked);
            if (c.sinks) CHECK(sums_below_one == rows);  // every row's weights sum to less than 1
        }
    }
}

TEST_CASE("sinks and documents: the same bits for threads 1, 2 and 3, and for any range of query rows") {
    test_util::ArchGuard guard;
    for (attn::Arch arch : test_util::supported_arches()) {
        attn::set_arch(arch);
        unsigned seed = 300;
        for (const Case& c : cases()) {
            INFO("arch " << std::string(attn::arch_name(arch)) << ", case " << c.name);
            Inputs in;
            make_inputs(c, seed++, in);
            for (bool materialised : {false, true}) {
                INFO("materialised " << materialised);
                attn::AttentionWants w;
                w.weights = materialised;
                const attn::BatchedAttention one =
                    check_same_bits_over_threads({2u, 3u}, materialised, [&] { return run(c, in, in.spec, w); });
                const std::size_t Tq = c.q.back(2);
                if (!materialised && !c.ranges_bitwise) continue;
                for (const auto& range : {std::pair<std::size_t, std::size_t>{Tq / 3, Tq - Tq / 4}, {Tq - 1, Tq}}) {
                    attn::AttentionSpec s = in.spec;
                    s.query_rows = {range.first, range.second};
                    const attn::BatchedAttention part = run(c, in, s, w);
                    bool same = part.context.slices() == one.context.slices();
                    for (std::size_t sl = 0; same && sl < part.context.slices(); ++sl)
                        for (std::size_t r = 0; same && r < part.context.rows(); ++r)
                            same = std::memcmp(one.context.slice_data(sl) + (range.first + r) * one.context.row_stride(),
                                               part.context.slice_data(sl) + r * part.context.row_stride(),
                                               part.context.cols() * sizeof(float)) == 0;
                    INFO("rows " << range.first << ":" << range.second);
                    CHECK(same);
                }
            }
        }
    }
}

TEST_CASE("documents: the resolved problem's keys are the row's document within the other rules") {
    const Tensor q(Shape{1, 9, 4}), k(Shape{1, 9, 4}), v(Shape{1, 9, 4});
    attn::AttentionSpec s;
    s.segments = {3, 3, 3, 8, 1, 1, 1, 1, 5};
    s.causal = Causal::top_left;
    const attn::AttentionProblem p = attn::resolve_attention(q.view(), k.view(), v.view(), s);
    for (std::size_t i = 0; i < 9; ++i)
        for (std::size_t j = 0; j < 9; ++j) {
            INFO("i " << i << " j " << j);
            CHECK(p.allowed(0, 0, i, j) == (j <= i && s.segments[i] == s.segments[j]));
        }
}

TEST_CASE("sinks and documents: the resolved problem refuses what does not fit") {
    const Tensor q(Shape{2, 6, 4}), k(Shape{2, 6, 4}), v(Shape{2, 6, 4}), k7(Shape{2, 7, 4});
    const auto resolve = [&](const attn::AttentionSpec& s, const Tensor& keys) {
        return attn::resolve_attention(q.view(), keys.view(), keys.view(), s);
    };
    attn::AttentionSpec s;
    s.sinks = {1.0f, 2.0f, 3.0f};  // 3 sinks for 2 heads
    CHECK_THROWS_AS(resolve(s, k), attn::ShapeError);
    s.sinks = {1.0f, NAN};
    CHECK_THROWS_AS(resolve(s, k), attn::InputError);
    s.sinks = {1.0f, 2.0f};
    CHECK(resolve(s, k).sinks.size() == 2);
    attn::AttentionSpec shard = s;
    shard.key_rows = {0, 3};
    CHECK_THROWS_AS(resolve(shard, k), attn::InputError);
    attn::AttentionSpec sum = s;
    sum.normalize = attn::Normalization::sum;
    CHECK_THROWS_AS(resolve(sum, k), attn::InputError);

    attn::AttentionSpec d;
    d.segments = {0, 0, 1, 1, 2};  // 5 ids for 6 positions
    CHECK_THROWS_AS(resolve(d, k), attn::ShapeError);
    d.segments = {0, 0, 1, 1, 2, 2};
    CHECK(resolve(d, k).doc_rows == 1);
    CHECK_THROWS_AS(resolve(d, k7), attn::ShapeError);  // 6 ids for 7 key positions
    // Tq = 6 < Tk = 7, B = 2: one id per key position, the queries at i + offset taking the id there.
    const Tensor q4(Shape{2, 1, 6, 4}), k4(Shape{2, 1, 7, 4});
    const auto resolve4 = [&](const attn::AttentionSpec& s4) {
        return attn::resolve_attention(q4.view(), k4.view(), k4.view(), s4);
    };
    attn::AttentionSpec d7;
    d7.segments = {0, 0, 1, 1, 1, 2, 2};
    CHECK(resolve4(d7).doc_rows == 1);
    d7.offsets = {1};
    CHECK(resolve4(d7).doc_rows == 1);
    d7.offsets = {1, 0};  // offsets differ per item: a row of documents per item
    const attn::AttentionProblem po = resolve4(d7);
    CHECK(po.doc_rows == 2);
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t i = 0; i < 6; ++i)
            for (std::size_t j = 0; j < 7; ++j) CHECK(po.allowed(b, 0, i, j) == (d7.segments[i + 1 - b] == d7.segments[j]));
    d7.offsets = {2, -1};  // item 0's query 5 at position 7, item 1's query 0 at -1: no document, no key
    const attn::AttentionProblem out = resolve4(d7);
    for (std::size_t j = 0; j < 7; ++j) CHECK(!out.allowed(0, 0, 5, j));
    for (std::size_t j = 0; j < 7; ++j) CHECK(!out.allowed(1, 0, 0, j));
    CHECK(out.allowed(0, 0, 4, 6));
    CHECK(out.allowed(1, 0, 1, 0));
    d7.offsets.clear(), d7.past = 1;  // a cache of 1: the queries at 1..6
    const attn::AttentionProblem pc = resolve4(d7);
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 7; ++j) CHECK(pc.allowed(1, 0, i, j) == (d7.segments[i + 1] == d7.segments[j]));
    d7.segments = {0, 1, 0, 1, 2, 0, 2};  // interleaved: the mask bits follow the same positions
    d7.past = 0, d7.offsets = {1, -1};
    const attn::AttentionProblem pm = resolve4(d7);
    CHECK(pm.doc_rows == 0);
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t i = 0; i < 6; ++i)
            for (std::size_t j = 0; j < 7; ++j) {
                const long long at = (long long)i + (b ? -1 : 1);
                CHECK(pm.allowed(b, 0, i, j) == (at >= 0 && at < 7 && d7.segments[std::size_t(at)] == d7.segments[j]));
            }
    d.segments = {0, 1, 0, 1, 2, 2};  // ids in several runs: FlexAttention's rule as mask bits
    const attn::AttentionProblem p = resolve(d, k);
    CHECK(p.doc_rows == 0);
    CHECK(p.has_mask);
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 6; ++j) CHECK(p.allowed(0, 1, i, j) == (d.segments[i] == d.segments[j]));
    d.segments = std::vector<long long>(18, 0), d.segment_rows = 3;  // 3 rows for 1 batch item
    CHECK_THROWS_AS(resolve(d, k), attn::ShapeError);
}
