# --arch / $ATTN_ARCH selection, as reported by `attn --version` and `attn bench`. The
# arches come from the binary itself, not from a list kept here: an unknown name's message
# lists every arch of the table (src/arch/arches.def), and each is tried. Whether this CPU
# runs them is checked in the unit tests, against libgcc's view of the CPU (test_dispatch.cpp).
run bench --op matmul --sizes 8 --arch sse9
expect_code 2 "unknown arch"
expect_err_has "invalid --arch 'sse9': expected auto, scalar" "unknown arch message"
known=$(sed -n "s/.*invalid --arch 'sse9': expected auto, //p" "$T/err" | sed 's/ or /, /; s/, / /g')
if [ "$(wc -w <<<"$known")" -ge 2 ]; then pass; else fail "the message names fewer than 2 arches: '$known'"; fi
expected_arches="" unsupported=""
for a in $known; do
    ATTN_ARCH=$a run --version
    if [ "$CODE" -eq 0 ]; then
        expected_arches="$expected_arches $a"
    else
        expect_code 2 "ATTN_ARCH=$a attn --version on a CPU without it"
        expect_err_has "cannot run ATTN_ARCH $a" "ATTN_ARCH=$a: the message says the CPU cannot"
        unsupported="$unsupported $a"
    fi
done
expected_arches=${expected_arches# }
case " $expected_arches " in *" scalar "*) pass ;; *) fail "scalar is not runnable (runnable: $expected_arches)" ;; esac
# The unsupported message lists exactly the runnable arches, in the table's order.
if [ -n "$unsupported" ]; then
    a=${unsupported##* }
    ATTN_ARCH=$a run --version
    expect_err_has "(available: $(sed 's/ /, /g' <<<"$expected_arches"))" "ATTN_ARCH=$a names the available arches"
fi
best=${expected_arches##* }

ATTN_ARCH= run --version
expect_code 0 "--version"
# the commit it was built from, as the README's measurements name commits
if commit=$(git -C "$ROOT" rev-parse --short=7 HEAD 2>/dev/null); then expect_out_has "(commit $commit" "--version names the commit"; fi
expect_out_has "kernels: $best" "--version names the best arch ($best)"

for a in $expected_arches; do
    ATTN_ARCH=$a run --version
    expect_out_has "kernels: $a" "ATTN_ARCH=$a attn --version"
    run bench --op matmul --sizes 33 --repeat 2 --warmup 0 --threads 3 --arch "$a" --format json
    expect_code 0 "bench --arch $a"
    expect_out_has "\"arch\": \"$a\"" "bench --arch $a reports $a"
    expect_out_has "\"threads\": 3" "bench --threads 3 reports 3 threads"
    for field in mean stddev median min max times op shape gflops; do
        expect_out_has "\"$field\":" "bench json has $field"
    done
    ATTN_ARCH=$a run bench --op softmax --sizes 20x30 --repeat 1 --warmup 0 --format csv
    expect_code 0 "ATTN_ARCH=$a bench"
    expect_out_has "softmax,20x30,$a," "ATTN_ARCH=$a is honoured by bench"
done

# --arch beats $ATTN_ARCH.
ATTN_ARCH=scalar run bench --op matmul --sizes 8 --repeat 1 --warmup 0 --arch "$best" --format csv
expect_out_has "matmul,8x8x8,$best," "--arch overrides ATTN_ARCH"

for a in $unsupported; do
    run bench --op matmul --sizes 8 --repeat 1 --arch "$a"
    expect_code 2 "bench --arch $a on a CPU without it"
    expect_err_has "cannot run --arch $a" "clear message for an unsupported arch"
    expect_out_empty "no results for an unsupported arch"
    ATTN_ARCH=$a run --version
    expect_code 2 "ATTN_ARCH=$a attn --version"
    ATTN_ARCH=$a run bench --op matmul --sizes 8 --repeat 1
    expect_code 2 "ATTN_ARCH=$a bench"
done


# bench option errors are usage errors.
run bench --op matmul --sizes 0
expect_code 2 "bench --sizes 0"
run bench --op nope
expect_code 2 "bench --op nope"
run bench --op attention --fused --materialized
expect_code 2 "bench --fused --materialized"
run bench --op matmul --sizes 8x8 --repeat 1
expect_code 2 "bench matmul needs N or MxNxK"
run bench --op matmul --sizes 8 --repeat 0
expect_code 2 "bench --repeat 0"

# Attention cases, both paths, causal: they run, and count 4*d FLOPs per visible cell (they
# were counted dense, and a causal case printed 141% of the FMA peak): 40 queries of 33 keys
# see 1..33 keys, 792 of 1320 cells, 0.6; 4*40*33*7*0.6 = 22176 FLOPs = gflops * median * 1e9.
run bench --op attention --sizes 40x33 --d 7 --causal --repeat 1 --warmup 0 --format json
expect_code 0 "bench attention causal fused"
msg=$(awk '/"visible_fraction"/ { sub(/.*"visible_fraction": /, ""); sub(/,.*/, ""); v = $0 }
           /"median"/ { m = $0; sub(/.*"median": /, "", m); sub(/,.*/, "", m) }
           /"gflops": [0-9]/ && m != "" { g = $0; sub(/.*"gflops": /, "", g); sub(/,.*/, "", g); f = g * m * 1e9 }
           END { if (v != 0.6) print "visible_fraction " v ", expected 0.6"
                 else if (f < 22176 * 0.999 || f > 22176 * 1.001) print "FLOPs " f ", expected 22176" }' <<<"$OUT")
[ -z "$msg" ] && pass || fail "bench counts a causal case's visible cells: $msg"
run bench --op attention --sizes 40 --d 8 --materialized --repeat 1 --warmup 0 --format json
expect_code 0 "bench attention materialized"
expect_out_has "\"fused\": false" "materialized path reported"

# ODR guard (design notes §2): a per-arch object must not export weak (COMDAT) code that
# the linker could pick for callers in other translation units — only templates on the
# xsimd arch tag (any of xsimd's SSE, AVX and NEON families) may be instantiated there. The
# objects sit next to the binary under test.
arch_objs=$(ls "$(dirname "$ATTN")"/obj/src/arch/*.o 2>/dev/null)
if [ -z "$arch_objs" ] || ! command -v nm >/dev/null; then
    fail "ODR guard: no per-arch objects under $(dirname "$ATTN")/obj/src/arch or no nm"
else
    leaks=$(for o in $arch_objs; do nm -C "$o" | awk -v o="$(basename "$o")" '{ t = ($1 ~ /^[0-9a-f]+$/) ? $2 : $1 } t ~ /^[WVu]$/ { print o ": " $0 }'; done |
            grep -v 'DW.ref.__gxx_personality_v0' | grep -vE 'xsimd::(fma3<xsimd::)?(sse|avx|neon)[0-9a-z_]*\b' |
            grep -vE ' V (typeinfo|typeinfo name) for ' || true)  # data, not code: UBSan's vptr checks add them
    if [ -z "$leaks" ]; then pass; else fail "ODR guard: weak symbols not tied to an arch: $(head -5 <<<"$leaks")"; fi
fi

# A case that cannot fit is refused up front (usage error), not swapped to death.
run bench --op matmul --sizes 1000000 --repeat 1
expect_code 2 "bench refuses a matmul larger than memory"
expect_err_has "more than half of this machine's memory" "bench memory refusal message"

# Attention-only bench options with an op that ignores them are refused, not silently dropped.
for extra in "--causal" "--materialized" "--fused" "--d 8"; do
    # shellcheck disable=SC2086  # word splitting of $extra is intended
    run bench --op matmul --sizes 4 --repeat 1 --warmup 0 $extra
    expect_code 2 "bench --op matmul $extra is refused"
    expect_out_empty "bench --op matmul $extra: no output"
done
run bench --op softmax --sizes 4 --repeat 1 --warmup 0 --causal
expect_code 2 "bench --op softmax --causal is refused"
# --causal takes an alignment, as attend's does (a flag until bench had bottom-right): not false
run bench --op matmul --sizes 4 --repeat 1 --warmup 0 --causal=false
expect_code 2 "bench --causal=false is no alignment"
expect_err_has "invalid --causal 'false': expected top-left or bottom-right" "bench --causal=false"
