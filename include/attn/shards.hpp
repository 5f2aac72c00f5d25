// Key shards: the results of one attention run split by keys (AttentionSpec::key_rows, attn
// attend --key-rows A:B) merged into the whole result, FlashDecoding's combine across
// processes. Shard s holds, per query row, its context c_s (the softmax over its keys only,
// times V) and its log-sum-exp l_s (BatchedAttention::lse). With M = max_s l_s and
// w_s = exp(l_s − M), the whole row is
//     context = Σ_s w_s·c_s / Σ_s w_s,   lse = M + ln Σ_s w_s,
// computed in double and rounded once. A shard whose row is fully masked (l_s = −inf) adds
// nothing (its context, 0 or NaN or the mean of V under --masked-rows, is not read). A row
// masked in every shard has lse −inf and the context every shard computed for it (the
// --masked-rows policy; each shard gives the whole run's value). The shards are reduced in
// one order that depends on their contents only (their lse, then context, bits), so the same
// shards give the same bits in any order; one shard is returned unchanged.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/tensor.hpp"

namespace attn {

struct KeyShard {
    TensorView context;  // (…, Tq, dv)
    TensorView lse;      // (…, Tq): the context's shape without its last dimension
};

struct MergedShards {
    Tensor context, lse;
};

// A shard that does not fit the first one (or its own lse), or holds a value no shard can
// hold (NaN or +inf in the lse, a non-finite context where the lse is finite): which shard
// (index into the list given), in the library's words.
class ShardError : public InputError {
public:
    ShardError(std::size_t shard, const std::string& message) : InputError(message), shard(shard) {}
    std::size_t shard;
};

// Throws ShardError; InputError for an empty list.
MergedShards merge_key_shards(const std::vector<KeyShard>& shards);

}  // namespace attn
