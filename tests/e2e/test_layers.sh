# The house drawn from its includes: every #include "..." in src/ and include/attn/ is an
# arrow from the including file's folder to the included file's folder. No arrow may run
# from a lower layer to a higher one, no folder may reach tests/oracle (the float64 oracle
# is for tests only), read/ and write/ may not include each other, and the folders may form
# no circle. Includes resolve as the compiler's -Iinclude -Isrc do: "attn/x.hpp" is
# include/attn/x.hpp, "folder/x.hpp" is src/folder/x.hpp; an include that resolves to
# neither fails, so no arrow goes unseen.

# THE LAYER TABLE, bottom (1) to top (7): one line per folder of src/ ("folder layer"), then
# one per public header of include/attn/ ("attn/NAME.hpp folder": the folder that implements
# it, whose layer it takes). A new folder or header not listed here fails this test, so its
# layer is decided when it is added. Subfolders (read/model, cli/attend) belong to their
# top folder. io.hpp declares the readers and the writers both, so it is a node of its own at
# their layer, which neither read/ nor write/ owns.
layer_table='
kernels 1
arch 1
runtime 2
tensor 3
read 4
write 4
io 4
attention 5
tokenize 5
draw 6
experiments 6
bench 6
model 6
cli 7
attn/arch.hpp arch
attn/error.hpp runtime
attn/runtime.hpp runtime
attn/version.hpp runtime
attn/matrix.hpp tensor
attn/tensor.hpp tensor
attn/concat.hpp tensor
attn/half.hpp tensor
attn/mask_bits.hpp tensor
attn/io.hpp io
attn/model_file.hpp read
attn/column_blocks.hpp write
attn/masking.hpp attention
attn/problem.hpp attention
attn/positions.hpp attention
attn/multihead.hpp attention
attn/attention.hpp attention
attn/shards.hpp attention
attn/ops.hpp attention
attn/diagnostics.hpp attention
attn/tokenizer.hpp tokenize
attn/viz.hpp draw
attn/viz_grid.hpp draw
attn/html_view.hpp draw
attn/torch_rng.hpp experiments
attn/numpy_rng.hpp experiments
attn/variance_experiment.hpp experiments
attn/model.hpp model
'
# The arrows still to remove, each by file and what it includes ("file include"); every one
# is reported as fixed work left, and an arrow not listed here fails the test. Delete a line
# when its arrow is gone (a line whose arrow is gone fails too, so the list only shrinks).
known_arrows=''

# Same-layer arrows that are forbidden all the same ("from to").
forbidden_pairs='read write
write read'

# layer_edges ROOT: prints "from to file:line" for every include of src/ and include/attn/
# under ROOT (paths relative to ROOT), or "?? ?? file:line: reason" for an include it cannot place.
layer_edges() {
    (cd "$1" && find src include/attn -name '*.hpp' -o -name '*.cpp' -o -name '*.def' -o -name '*.h' | sort |
        xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' |
        awk -v table="$layer_table" '
            BEGIN {
                n = split(table, line, "\n")
                for (i = 1; i <= n; i++) { if (split(line[i], f, " ") != 2) continue
                    if (f[1] ~ /^attn\//) owner[f[1]] = f[2]; else layer[f[1]] = f[2] }
            }
            function node(path,   h, part) {  # the folder a file of the tree belongs to, or "" if unlisted
                if (path ~ /^include\/attn\//) { h = substr(path, 9); return (h in owner) ? owner[h] : "" }
                if (path ~ /^src\//) { split(path, part, "/"); return (part[2] in layer) ? part[2] : "" }
                return ""
            }
            function exists(path,   r) { r = (getline junk < path); close(path); return r >= 0 }
            {
                colon = index($0, ":"); file = substr($0, 1, colon - 1); rest = substr($0, colon + 1)
                where = file ":" substr(rest, 1, index(rest, ":") - 1)
                inc = rest; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
                from = node(file)
                if (from == "") { print "?? ?? " where ": " file " has no layer in the table"; next }
                if (inc ~ /^oracle\// || inc ~ /(^|\/)tests\/oracle\//) { print from " oracle " where; next }
                if (inc ~ /^attn\//) target = "include/" inc
                else if (exists("src/" inc)) target = "src/" inc
                else { d = file; sub(/\/[^\/]*$/, "", d); target = d "/" inc }  # beside the includer
                if (!exists(target)) { print "?? ?? " where ": \"" inc "\" resolves to no file of src/ or include/"; next }
                to = node(target)
                if (to == "") { print "?? ?? " where ": " target " has no layer in the table"; next }
                print from " " to " " where " " inc
            }')
}

# layer_violations ROOT: prints one line per arrow that breaks the house, and any circle.
layer_violations() {
    local edges
    edges=$(layer_edges "$1")
    awk -v table="$layer_table" -v pairs="$forbidden_pairs" -v known="$known_arrows" '
        BEGIN {
            n = split(known, line, "\n")
            for (i = 1; i <= n; i++) if (split(line[i], f, " ") == 2) allowed_for_now[f[1] " " f[2]] = 1
            n = split(table, line, "\n")
            for (i = 1; i <= n; i++) if (split(line[i], f, " ") == 2 && f[1] !~ /^attn\//) layer[f[1]] = f[2]
            n = split(pairs, line, "\n")
            for (i = 1; i <= n; i++) if (split(line[i], f, " ") == 2) forbidden[f[1] " " f[2]] = 1
        }
        $1 == "??" { $1 = ""; $2 = ""; print "unplaced include:" $0; next }
        $2 == "oracle" { print "the oracle outside tests: " $3; next }
        { file = $3; sub(/:[0-9]+$/, "", file) }
        (file " " $4) in allowed_for_now { seen[file " " $4] = 1; next }
        layer[$2] > layer[$1] { print "upward arrow " $1 " (layer " layer[$1] ") -> " $2 " (layer " layer[$2] "): " $3; next }
        ($1 " " $2) in forbidden { print "forbidden arrow " $1 " -> " $2 ": " $3 }
        END { for (k in allowed_for_now) if (!(k in seen)) print "a known arrow is gone (delete its line): " k }
    ' <<<"$edges"
    # A circle can only run within one layer once no arrow runs upward; tsort finds any.
    if ! awk -v known="$known_arrows" '
            BEGIN { n = split(known, line, "\n"); for (i = 1; i <= n; i++) allowed_for_now[line[i]] = 1 }
            { file = $3; sub(/:[0-9]+$/, "", file) }
            $1 != "??" && $2 != "oracle" && $1 != $2 && !((file " " $4) in allowed_for_now) { print $1, $2 }' <<<"$edges" | sort -u |
            tsort >/dev/null 2>"$T/tsort.err"; then
        echo "circle between folders: $(grep -v 'input contains a loop' "$T/tsort.err" | sed 's/^tsort: //' | tr '\n' ' ')"
    fi
}

# The test can fail: a copy of the tree with a planted upward include (kernels -> tensor), an
# oracle include, a read -> write arrow, a circle (kernels <-> arch) and an unlisted header is
# caught on each count.
mkdir -p "$T/tree"
cp -r "$ROOT/src" "$ROOT/include" "$T/tree/"
kernel_header=$(cd "$T/tree" && ls src/kernels/*.hpp | head -1)
arch_header=$(cd "$T/tree" && ls src/arch/*.hpp | head -1)
echo '#include "attn/tensor.hpp"' >>"$T/tree/$kernel_header"
echo "#include \"${arch_header#src/}\"" >>"$T/tree/$kernel_header"
echo '#include "kernels/'"$(basename "$kernel_header")"'"' >>"$T/tree/$arch_header"
echo '#include "oracle/reference.hpp"' >>"$T/tree/src/attention/engine.cpp"
echo '#include "write/output_file.hpp"' >>"$T/tree/src/read/reader.cpp"
echo '#pragma once' >"$T/tree/include/attn/unlisted.hpp"
echo '#include "attn/unlisted.hpp"' >>"$T/tree/src/cli/main.cpp"
planted=$(layer_violations "$T/tree")
for want in "upward arrow kernels (layer 1) -> tensor (layer 3): $kernel_header" \
            "the oracle outside tests: src/attention/engine.cpp" \
            "forbidden arrow read -> write: src/read/reader.cpp" \
            "circle between folders:" \
            "include/attn/unlisted.hpp has no layer in the table"; do
    if grep -qF -- "$want" <<<"$planted"; then pass; else fail "a planted arrow goes unseen: '$want' not in: $planted"; fi
done

# The house itself (and the drawing saw it: hundreds of arrows, not an empty page).
arrows=$(layer_edges "$ROOT" | wc -l)
if [ "$arrows" -gt 200 ]; then pass; else fail "only $arrows includes found in src/ and include/attn/"; fi
found=$(layer_violations "$ROOT")
if [ -z "$found" ]; then pass; else fail "the includes break the layers:
$found"; fi
# Every folder of src/ and header of include/attn/ has its layer (a new one must be placed).
for d in "$ROOT"/src/*/; do
    d=$(basename "$d")
    if grep -qx "$d [0-9]" <<<"$layer_table"; then pass; else fail "src/$d has no layer in test_layers.sh's table"; fi
done
for h in "$ROOT"/include/attn/*.hpp; do
    h=attn/$(basename "$h")
    if grep -q "^$h " <<<"$layer_table"; then pass; else fail "include/$h has no layer in test_layers.sh's table"; fi
done
