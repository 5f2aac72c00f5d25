# Start-up: attn is linked statically, so it needs no loader and no shared library at run
# time (that is what makes `attn --version` start about as fast as /bin/true; the time itself
# is measured with hyperfine, not asserted here). Sanitizer builds link dynamically.
if [ -z "${ATTN_SANITIZER:-}" ] && command -v readelf >/dev/null 2>&1; then
    if readelf -l "$ATTN" | grep -q 'INTERP'; then fail "attn has a program interpreter (not static)"; else pass; fi
    if readelf -d "$ATTN" 2>/dev/null | grep -q 'NEEDED'; then fail "attn needs shared libraries"; else pass; fi
fi
run --version; expect_code 0 "--version"
expect_out_has "attn " "--version prints the version"
