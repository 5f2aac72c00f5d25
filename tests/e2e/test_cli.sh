# The top-level CLI: help, version, unknown commands, and what the binary links.
run --help
expect_code 0 "attn --help"
for cmd in attend softmax matmul example random variance bench; do
    expect_out_has "  $cmd " "attn --help lists $cmd"
done
for cmd in attend softmax matmul example random variance bench; do
    run $cmd --help
    expect_code 0 "attn $cmd --help"
done
run --version
expect_code 0 "attn --version"
expect_out_has "attn " "version line"
run frobnicate
expect_code 2 "unknown command"
expect_err_has "unknown command 'frobnicate'" "unknown command named"
"$ATTN" >/dev/null 2>&1
if [ $? -eq 2 ]; then pass; else fail "no command is a usage error"; fi

# Only the C/C++ runtime and pthreads at run time.
if command -v ldd >/dev/null 2>&1; then
    extra=$(ldd "$ATTN" | awk '{print $1}' | grep -v -E '^(linux-vdso|/lib64/ld-linux|/lib/ld-linux|libc\.so|libm\.so|libstdc\+\+\.so|libgcc_s\.so|libpthread\.so)' || true)
    if [ -z "$extra" ]; then pass; else fail "unexpected run-time libraries: $extra"; fi
fi

# ATTN_ARCH applies to every computing command, and an invalid value names the variable.
for cmd in "attend -x $ROOT/data/examples/simple/x.txt" "variance --dk 8" "softmax $ROOT/data/examples/scaling/logits.txt"; do
    # shellcheck disable=SC2086
    ATTN_ARCH=bogus "$ATTN" $cmd >"$T/out" 2>"$T/err" </dev/null; CODE=$?
    expect_code 2 "ATTN_ARCH=bogus attn ${cmd%% *}"
    expect_err_has "invalid ATTN_ARCH 'bogus'" "ATTN_ARCH named in the message (${cmd%% *})"
done

# attn --version took and ignored any words after it; attn --help CMD is attn help CMD.
run --version extra
expect_code 2 "--version with an extra argument"
expect_err_has "unexpected argument 'extra' after --version" "--version extra: the message"
run --help ls
expect_code 0 "--help COMMAND"
"$ATTN" help ls > "$T/help_ls" 2>/dev/null
if cmp -s "$T/out" "$T/help_ls"; then pass; else fail "attn --help ls differs from attn help ls"; fi
run --help nope
expect_code 2 "--help with an unknown command"

# Without --format, -o's extension names the format (-o x.npy wrote csv into x.npy, which
# numpy.load could not read); an explicit --format still wins.
run random --shape 2,3 --seed 0 -o "$T/ext.npy"
if [ "$(head -c 6 "$T/ext.npy" | tail -c 5)" = "NUMPY" ]; then pass; else fail "-o x.npy without --format is not npy"; fi
run random --shape 2,3 --seed 0 -o "$T/ext.JSON"
if head -c 1 "$T/ext.JSON" | grep -q '{'; then pass; else fail "-o x.JSON without --format is not json"; fi
run random --shape 2,3 --seed 0 -o "$T/ext.tsv"
if grep -q "$(printf '\t')" "$T/ext.tsv"; then pass; else fail "-o x.tsv without --format is not tsv"; fi
run random --shape 2,3 --seed 0 --format csv -o "$T/explicit.npy"
if grep -q ',' "$T/explicit.npy"; then pass; else fail "--format csv -o x.npy is not csv"; fi
