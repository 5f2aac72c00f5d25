# $ATTN_ARCH is honoured by every command alike, not only by those with --arch: the readers
# scan floats with the arch's kernels, so concat, ls and random refuse an unknown or
# unsupported arch as attend does, and give the same bytes under every arch this CPU runs.
# The arches come from the binary (an unknown name's message lists the table), and which of
# them this CPU runs from `attn --version` (test_arch.sh checks those two against each other).

runnable="" unsupported=""
ATTN_ARCH=sse9 "$ATTN" --version >/dev/null 2>"$T/arches" </dev/null
for a in $(sed -n "s/.*'sse9': expected auto, //p" "$T/arches" | sed 's/ or /, /; s/, / /g'); do
    if ATTN_ARCH=$a "$ATTN" --version >/dev/null 2>&1 </dev/null; then runnable="$runnable $a"; else unsupported="$unsupported $a"; fi
done
case " $runnable " in *" scalar "*) pass ;; *) fail "the arches could not be read from the binary (runnable: '$runnable')" ;; esac

"$ATTN" random --shape 3,4 --seed 1 -o "$T/a.npy" </dev/null
"$ATTN" random --shape 2,4 --seed 2 -o "$T/b.npy" </dev/null
model="$ROOT/data/models/small.npz"

# each_reader_command CHECK: CHECK NAME ARGS... for each command that only reads, prints and
# draws (its bytes are the same under every arch); each_command adds attend (whose last
# digits depend on the arch's kernels).
each_reader_command() {
    "$1" concat concat "$T/a.npy" "$T/b.npy"
    "$1" ls ls "$model"
    "$1" random random --shape 2,3 --seed 0
}
each_command() {
    "$1" attend attend -q "$T/a.npy" -k "$T/a.npy" -v "$T/a.npy"
    each_reader_command "$1"
}

refuses_unknown() {
    local what=$1; shift
    ATTN_ARCH=sse9 run "$@"
    expect_code 2 "ATTN_ARCH=sse9 attn $what"
    expect_err_has "invalid ATTN_ARCH 'sse9'" "ATTN_ARCH=sse9 attn $what names the variable"
    expect_out_empty "ATTN_ARCH=sse9 attn $what prints nothing"
}
each_command refuses_unknown

refuses_unsupported() {
    local what=$1; shift
    for a in $unsupported; do
        ATTN_ARCH=$a run "$@"
        expect_code 2 "ATTN_ARCH=$a attn $what on a CPU without it"
        expect_err_has "cannot run ATTN_ARCH $a" "ATTN_ARCH=$a attn $what message"
        expect_out_empty "ATTN_ARCH=$a attn $what prints nothing"
    done
}
each_command refuses_unsupported

same_bytes_every_arch() {
    local what=$1; shift
    ATTN_ARCH= run "$@"
    expect_code 0 "attn $what"
    cp "$T/out" "$T/expected"
    for a in $runnable; do
        ATTN_ARCH=$a run "$@"
        expect_code 0 "ATTN_ARCH=$a attn $what"
        if cmp -s "$T/out" "$T/expected"; then pass; else fail "ATTN_ARCH=$a attn $what: output differs from the default arch"; fi
    done
}
each_reader_command same_bytes_every_arch

# The variable is read once the options are parsed: --help still works under a bad one.
ATTN_ARCH=sse9 run concat --help
expect_code 0 "ATTN_ARCH=sse9 attn concat --help"
