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
