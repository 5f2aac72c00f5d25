# The memory check heeds the memory cgroup (a container, Slurm --mem, a systemd scope), not
# only /proc/meminfo: under a 600 MB cgroup, attend --show weights at T=16384 and random
# 16384x16384 were OOM-killed (exit 137, a 0-byte temporary file left). Each case runs in a
# private mount namespace (unshare -m, root only) whose /sys/fs/cgroup is a tmpfs holding the
# memory files of this process's own cgroup path (from /proc/self/cgroup) with the figures
# given: the reader of the real files, fed a limit. Refused: exit 1, a message, no file left.
# Skipped (not counted) without root or unshare, and under sanitizers.

# cgroup_path VERSION: this process's cgroup in the v2 or the v1 memory hierarchy ("" for the root)
cgroup_path() {
    local path
    if [ "$1" = v2 ]; then path=$(sed -n 's/^0:://p' /proc/self/cgroup)
    else path=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup); fi
    [ "$path" = / ] || echo "$path"
}

# in_cgroup VERSION DIR LIMIT USAGE INACTIVE ARGS...: runs attn with a fake cgroup VERSION (v1 or
# v2) at DIR ("leaf" = this process's cgroup, "parent" = its parent, the leaf then unlimited):
# limit LIMIT bytes, usage USAGE, inactive file cache INACTIVE. Standard input from $T/stdin
# when it exists. Sets CODE, ERR.
in_cgroup() {
    local version=$1 at=$2 limit=$3 usage=$4 inactive=$5; shift 5
    local path input
    path=$(cgroup_path "$version")
    input=/dev/null; [ -e "$T/stdin" ] && input=$T/stdin
    CG_VERSION=$version CG_PATH=$path CG_AT=$at CG_LIMIT=$limit CG_USAGE=$usage CG_INACTIVE=$inactive \
    unshare -m sh -c '
        mount -t tmpfs cgroup-test /sys/fs/cgroup || exit 99
        if [ "$CG_VERSION" = v2 ]; then base=/sys/fs/cgroup max=memory.max cur=memory.current stat=inactive_file
        else base=/sys/fs/cgroup/memory max=memory.limit_in_bytes cur=memory.usage_in_bytes stat=total_inactive_file; fi
        leaf=$base$CG_PATH; dir=$leaf
        [ "$CG_AT" = parent ] && dir=${leaf%/*}
        mkdir -p "$leaf" && echo "$CG_LIMIT" > "$dir/$max" && echo "$CG_USAGE" > "$dir/$cur" &&
            printf "active_file 0\n%s %s\n" "$stat" "$CG_INACTIVE" > "$dir/memory.stat" || exit 99
        if [ "$dir" != "$leaf" ]; then  # the leaf: no limit of its own
            if [ "$CG_VERSION" = v2 ]; then echo max > "$leaf/$max"; else echo 9223372036854771712 > "$leaf/$max"; fi
            echo "$CG_USAGE" > "$leaf/$cur"
        fi
        exec "$@"' sh "$ATTN" "$@" <"$input" >"$T/out" 2>"$T/err"
    CODE=$?
    ERR=$(cat "$T/err")
}
expect_refused() {  # expect_refused DESCRIPTION
    if [ "$CODE" -eq 1 ] && grep -q "^attn: not enough memory: a buffer of .* GB is more than the .* GB left under the memory limit of cgroup " "$T/err"
    then pass; else fail "$1: exit $CODE, expected 1 and a message; stderr: $ERR"; fi
}

M=$((1024 * 1024))
if [ -z "${ATTN_SANITIZER:-}" ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null &&
    grep -q ':memory:\|^0::' /proc/self/cgroup; then
    "$ATTN" random --shape 16384,1 --seed 3 --format npy -o "$T/x.npy"
    # T×T weights are 1 GiB: more than a 600 MB cgroup holding 100 MB has left
    for version in v2 v1; do
        grep -q "$([ $version = v2 ] && echo '^0::' || echo ':memory:')" /proc/self/cgroup || continue
        in_cgroup $version leaf $((600 * M)) $((100 * M)) 0 attend -x "$T/x.npy" --show weights --format npy -o "$T/w.npy"
        expect_refused "attend --show weights, T=16384, cgroup $version memory limit 600 MB"
        if [ ! -e "$T/w.npy" ]; then pass; else fail "attend refused under cgroup $version: output written"; fi
        # the limit of an ancestor counts too (a systemd slice, a Slurm job over its steps)
        if [ -n "$(cgroup_path $version)" ]; then
            in_cgroup $version parent $((600 * M)) $((100 * M)) 0 attend -x "$T/x.npy" --show weights --format npy -o "$T/w.npy"
            expect_refused "attend --show weights, cgroup $version limit on the parent"
        fi
        # the same with room: 8 GB, or a cgroup full of inactive file cache the kernel reclaims first
        in_cgroup $version leaf $((8192 * M)) $((100 * M)) 0 attend -x "$T/x.npy" --show weights --format npy -o "$T/w.npy"
        expect_code 0 "attend --show weights under an 8 GB cgroup $version"
        rm -f "$T/w.npy"
        in_cgroup $version leaf $((2048 * M)) $((2048 * M)) $((1800 * M)) attend -x "$T/x.npy" --show weights --format npy -o "$T/w.npy"
        expect_code 0 "attend --show weights, cgroup $version at its limit with inactive file cache"
        rm -f "$T/w.npy"
    done
    if grep -q '^0::' /proc/self/cgroup; then v=v2; else v=v1; fi
    # random: the draw (1 GiB) is refused before it is generated; no file, no temporary file left
    mkdir "$T/r"
    in_cgroup $v leaf $((600 * M)) $((100 * M)) 0 random --shape 16384,16384 --format csv -o "$T/r/r.csv"
    expect_refused "random 16384x16384 under a 600 MB cgroup"
    if [ -z "$(ls -A "$T/r")" ]; then pass; else fail "random refused: left $(ls -A "$T/r")"; fi
    # standard input and an .npz member are read into memory as bytes: 300 MB of float64 (the
    # float32 tensor, 150 MB, would pass unchecked) under a 200 MB cgroup
    rows=$((300 * M / 512))
    dict="{'descr': '<f8', 'fortran_order': False, 'shape': ($rows, 64), }"
    { printf '\x93NUMPY\x01\x00\x76\x00%-117s\n' "$dict"; head -c $((rows * 512)) /dev/zero; } > "$T/stdin"
    in_cgroup $v leaf $((200 * M)) 0 0 softmax - --format npy -o "$T/r/s.npy"
    expect_refused "300 MB on standard input under a 200 MB cgroup"
    expect_err_has "a buffer of 0.3 GB" "the bytes of standard input are what is refused"
    if command -v python3 >/dev/null; then  # no python3: not checked, not counted
        python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z: z.write(sys.argv[2], "a.npy")' "$T/big.npz" "$T/stdin"
        rm -f "$T/stdin"
        in_cgroup $v leaf $((200 * M)) 0 0 softmax "$T/big.npz:a" --format npy -o "$T/r/s.npy"
        expect_refused "a 300 MB .npz member under a 200 MB cgroup"
        expect_err_has "a buffer of 0.3 GB" "the inflated member is what is refused"
        rm -f "$T/big.npz"
    fi
    rm -f "$T/stdin"
    # A pytorch_model.bin's copied tensors (views that cannot be used in place) are counted together
    # before any is read: 6 KB of stride-0 views that are 940 MB as float32, each under the 256 MiB a
    # single buffer is checked from, were read one by one whatever the memory (data/models/torch_save/expanded).
    in_cgroup $v leaf $((600 * M)) $((100 * M)) 0 model "$ROOT/data/models/torch_save/expanded" --ids 1,2 \
        --format npy -o "$T/r/a.npy"
    if [ "$CODE" -eq 1 ] && grep -q "^attn: not enough memory: the tensors of .*/expanded/pytorch_model.bin copied as float32 take 0.9 GB, more than the 0.5 GB left under the memory limit of cgroup " "$T/err"
    then pass; else fail "a pytorch_model.bin of 940 MB as float32 under a 600 MB cgroup: exit $CODE; stderr: $ERR"; fi
    if [ -z "$(ls -A "$T/r")" ]; then pass; else fail "refused reads: left $(ls -A "$T/r")"; fi
    # The same for a saved tuple of layers that view stacks: 8 expanded views of 64 MiB each.
    in_cgroup $v leaf $((300 * M)) $((100 * M)) 0 view "$ROOT/data/models/torch_save/expanded/layers.pt" --layer 0 \
        --html "$T/r/a.html"
    if [ "$CODE" -eq 1 ] && grep -q "^attn: not enough memory: the 8 tensors of .*/expanded/layers.pt stacked as float32 take 0.6 GB, more than the 0.2 GB left under the memory limit of cgroup " "$T/err"
    then pass; else fail "view of 8 expanded layers (512 MiB stacked) under a 300 MB cgroup: exit $CODE; stderr: $ERR"; fi
    if [ -z "$(ls -A "$T/r")" ]; then pass; else fail "refused view: left $(ls -A "$T/r")"; fi
fi
