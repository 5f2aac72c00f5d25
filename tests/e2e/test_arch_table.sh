# One arch table (src/arch/arches.def): no second list of the arches may appear. Outside the
# table, the arches' own translation units (src/arch/NAME.cpp) and the fake arch's test build
# (tests/fake_arch/), a line of src/, include/, tests/, the Makefile or .ci/ fails this check
# when it names an arch in code (Arch::NAME, "NAME", 'NAME', NAME::, namespace NAME,
# NAME_kernel_set) or names two arches (a list). Not counted: comments (//), xsimd's own tags
# (xsimd::avx2...), libgcc's CPU feature names (__builtin_cpu_supports("avx2")), and lines about PyTorch's RNG kernels (--torch-kernel avx2|scalar is
# PyTorch's build, not an attn arch). scalar is not looked for: Arch::scalar is the public
# API's one named arch, and "scalar" an ordinary word. In the Makefile no arch name may
# appear at all, but in the names of the aarch64 emulation target (test-neon, build-neon).
# e2e: not under a sanitizer: a scan of the source tree, no run of attn
table=$ROOT/src/arch/arches.def
arch_names=$(sed '/^#ifdef ATTN_FAKE_ARCH/,/^#endif/d' "$table" | sed -n 's/^ATTN_ARCH(\([a-z0-9_]*\),.*/\1/p' |
             grep -vx scalar | tr '\n' ' ')
if [ "$(wc -w <<<"$arch_names")" -ge 2 ]; then pass; else fail "arch table: fewer than 2 SIMD arches read from $table"; fi

# second_lists FILE...: prints FILE:LINE: TEXT for each offending line (paths relative to $ROOT).
second_lists() {
    awk -v names="$arch_names" -v root="$ROOT/" '
        BEGIN { n = split(names, name, " ") }
        function has(s, re) { return s ~ ("(^|[^A-Za-z0-9_])" re "([^A-Za-z0-9_]|$)") }
        {
            line = $0
            if (tolower(line) ~ /torch/) next
            make = FILENAME == root "Makefile"
            if (make) { sub(/#.*/, "", line); gsub(/[a-z]+-neon/, "", line) }
            else sub(/\/\/.*/, "", line)
            gsub(/xsimd::[A-Za-z0-9_]+|__builtin_cpu_supports\("[a-z0-9]+"\)/, "", line)
            named = 0; code = 0
            for (i = 1; i <= n; i++) {
                if (has(line, name[i])) named++
                if (index(line, "Arch::" name[i]) || index(line, "\"" name[i] "\"") || index(line, "\047" name[i] "\047") ||
                    index(line, "namespace " name[i]) || index(line, name[i] "_kernel_set") || has(line, name[i] "::")) code = 1
            }
            if (named >= 2 || code || (make && named)) print substr(FILENAME, index(FILENAME, root) == 1 ? length(root) + 1 : 1) ":" FNR ": " $0
        }' "$@"
}

own=$(printf "%s\n" "$table" "$ROOT/src/arch/scalar.cpp"; for n in $arch_names; do echo "$ROOT/src/arch/$n.cpp"; done)
mapfile -t scanned < <(cd "$ROOT" && find src include tests .ci Makefile -type f -not -path 'tests/fuzz/corpus/*' \
                           -not -path 'tests/fake_arch/*' -not -name "$E2E_FILE" | sed "s|^|$ROOT/|" | grep -vxF "$own" |
                       xargs -r grep -IlE "$(sed 's/ *$//; s/ /|/g' <<<"$arch_names")")
found=$(second_lists "${scanned[@]}" </dev/null)
if [ "${#scanned[@]}" -gt 0 ] && [ -z "$found" ]; then pass; else fail "a second list of the arches, outside src/arch/arches.def:
$found"; fi

# The check can fail: lines like the ones it replaced are caught, the allowed ones are not.
read -r -a probe_names <<<"$arch_names"  # not set --: run.sh keeps its arguments
{
    a=${probe_names[0]} b=${probe_names[1]}
    echo "x = {\"auto\", \"scalar\", \"$a\"};"        # a quoted name
    echo "    case Arch::$b: return true;"             # an enum member
    echo "expect_completion \"auto $a $b \" softmax"   # a list
    echo "// auto, scalar, $a, $b: a comment"           # allowed
    echo "static_assert(std::is_same_v<A, xsimd::$a>);" # allowed: xsimd's tag
    echo "TorchKernel k = TorchKernel::$a;"             # allowed: PyTorch's kernels
    echo "b = __builtin_cpu_supports(\"$a\");"          # allowed: a CPU feature
} >"$T/probe.cpp"
probe=$(second_lists "$T/probe.cpp" | cut -d: -f2 | tr '\n' ' ')
if [ "$probe" = "1 2 3 " ]; then pass; else fail "arch table check: caught lines '$probe' of the probe, expected '1 2 3 '"; fi
