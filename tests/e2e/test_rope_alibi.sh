# attn attend --rope THETA [--rope-style] [--rope-dims] and --alibi [--alibi-max-bias] against the
# PyTorch fixtures of data/positions/ (HF Llama's apply_rotary_pos_emb, GPT-J's rotate_every_two,
# GPT-NeoX's partial rotary dims, BLOOM's build_alibi_tensor, each context recomputed in float64;
# see data/positions/README.md), fused and materialised, compared with tests/tools/allclose.

ALLCLOSE=$(dirname "$ATTN")/allclose
FIXTURES=$ROOT/data/positions


if [ ! -x "$ALLCLOSE" ]; then
    fail "tests/tools/allclose is not built next to attn ($ALLCLOSE): make test builds it"
else
    for dir in "$FIXTURES"/rope_*/; do
        c=$(basename "$dir")
        args=(-q "$dir/q.npy" -k "$dir/k.npy" -v "$dir/v.npy" --rope "$(flag "$c" theta)"
              --rope-style "$(flag "$c" style)" --rope-dims "$(flag "$c" rope_dims)")
        causal=$(flag "$c" causal)
        [ "$causal" != None ] && args+=(--causal="$causal")
        attend_to "$c-fused" "${args[@]}" --show context && compare_npy "$c-fused" context "$c" context
        attend_to "$c-mat" "${args[@]}" --show scores,weights,context && {
            compare_npy "$c-mat" context "$c" context
            compare_npy "$c-mat" scores "$c" scores
        }
    done
    for dir in "$FIXTURES"/alibi_*/; do
        c=$(basename "$dir")
        args=(-q "$dir/q.npy" -k "$dir/k.npy" -v "$dir/v.npy" --alibi --causal="$(flag "$c" causal)")
        attend_to "$c-fused" "${args[@]}" --show context && compare_npy "$c-fused" context "$c" context
        attend_to "$c-mat" "${args[@]}" --show weights,context && compare_npy "$c-mat" context "$c" context
        # With a zero scale the scores are ALiBi's terms alone: BLOOM's slopes times j − i.
        attend_to "$c-slopes" -q "$dir/q.npy" -k "$dir/k.npy" -v "$dir/v.npy" --alibi --alibi-max-bias 8 \
            --scale 0 --show scaled && compare_npy "$c-slopes" scaled "$c" alibi_only 1e-6
    done
fi

# RoPE moves the scores: without --rope the same inputs give other scores.
run attend -q "$FIXTURES/rope_half_dims4_neox/q.npy" -k "$FIXTURES/rope_half_dims4_neox/k.npy" \
    -v "$FIXTURES/rope_half_dims4_neox/v.npy" --show scores --format npy -o "$T/norope"
if "$ALLCLOSE" "$T/norope/scores.npy" "$FIXTURES/rope_half_dims4_neox/scores.npy" --rtol 1e-5 --atol 1e-6 >/dev/null 2>&1; then
    fail "scores without --rope equal the rotated ones: the fixture does not see RoPE"
else pass; fi

# --help names every position option and the order of operations.
run attend --help
for o in --rope --rope-style --rope-dims --alibi --alibi-max-bias "+ ALiBi + bias"; do
    expect_out_has "$o" "attend --help documents $o"
done

# RoPE's relative-position property (attn example rope-relative): the same tokens 3 positions
# later (after 3 other keys, queries bottom-right) keep their scores.
ex=$ROOT/data/examples/rope-relative
run attend -q "$ex/x.txt" -k "$ex/x.txt" -v "$ex/x.txt" --rope 10000 --show scores --format csv
grep -v '^#' "$T/out" > "$T/s1"
run attend -q "$ex/x.txt" -k "$ex/y.txt" -v "$ex/y.txt" --rope 10000 --causal=bottom-right --show scores --format csv
grep -v '^#' "$T/out" | cut -d, -f4-7 > "$T/s2"
expect_close "$T/s1" "$T/s2" 1e-5 "RoPE scores depend on i - j only: shifted by 3, the same scores"
run attend -q "$ex/x.txt" -k "$ex/y.txt" -v "$ex/y.txt" --rope 10000 --show scores --format csv
grep -v '^#' "$T/out" | cut -d, -f4-7 > "$T/s3"
if cmp -s "$T/s2" "$T/s3"; then fail "queries at 0..3 against keys at 3..6 gave the shifted scores"; else pass; fi

# RoPE visits only the positions queries and keys take: with --causal-offset 2^48 the queries
# are far from the keys, and the positions between (the rotation ran over every one of them,
# about 20 ns each: days) are skipped. Found by a resource-limits audit.
"$ATTN" random --seed 21 --shape 4,8 --format npy -o "$T/far.npy"
timeout 20 "$ATTN" attend -x "$T/far.npy" --causal-offset 281474976710656 --rope 10000 --show weights --format csv \
    >"$T/out" 2>"$T/err"; CODE=$?
expect_code 0 "--rope with --causal-offset 2^48 finishes"
