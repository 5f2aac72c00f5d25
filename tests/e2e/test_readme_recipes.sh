# The README's Recipes, run as printed there (between <!-- recipes:begin --> and
# <!-- recipes:end -->) in a copy of the source tree's layout: build/attn and data/.
clone="$T/clone"
mkdir -p "$clone/build" && ln -s "$ATTN" "$clone/build/attn" && ln -s "$ROOT/data" "$clone/data"
sed -n '/<!-- recipes:begin -->/,/<!-- recipes:end -->/p' "$ROOT/README.md" | grep -v '^<!--\|^```' >"$T/recipes.sh"
# one command per logical line: continuation lines joined, comments and blank lines dropped
awk '/^#/ || /^[ \t]*$/ { next } { line = line $0 } /\\$/ { sub(/\\$/, "", line); next } { print line; line = "" }' \
    "$T/recipes.sh" >"$T/commands"
n=$(wc -l <"$T/commands")
[ "$n" -ge 9 ] && pass || fail "README recipes: $n commands found"
i=0
while IFS= read -r cmd; do
    i=$((i + 1))
    (cd "$clone" && bash -e -o pipefail -c "$cmd") >"$T/recipe$i.out" 2>"$T/recipe$i.err" </dev/null \
        && pass || fail "README recipe $i: $cmd: $(cat "$T/recipe$i.err")"
done <"$T/commands"
cat "$T"/recipe*.out >"$T/all.out"
# The tutorial printed the third token's weights [0.1509, 0.2445, 0.1674, 0.1532, 0.1707, 0.1133]:
# its two largest are keys 1 and 4, in that order.
awk '$1 == 2 { print $2 }' "$T/all.out" | head -n 2 | paste -sd' ' | grep -qx '1 4' && pass \
    || fail "top-2 recipe: query 2 should attend most to keys 1 and 4"
grep -qx ",$(paste -sd, "$ROOT/data/examples/masking/labels.txt")" "$T/all.out" && pass || fail "labelled csv header row"
[ "$(grep -c -- ' -> ' "$T/all.out")" -eq 8 ] && pass || fail "jq recipe: one line per token"
grep -qE '^\[\[[^]]*\],\[[^]]*\]\]$' "$T/all.out" && pass || fail "checkpoint head recipe: a 2×2 matrix from jq"
grep -q 'id="attn-data"' "$clone/out/weights.html" && pass || fail "html recipe wrote the page"
cmp -s "$clone/out/masking/x.txt" "$ROOT/data/examples/masking/x.txt" && pass || fail "export recipe wrote the example"
grep -qx '\[CLS\],time,flies,like,an,arrow,\[SEP\],fruit,flies,like,a,banana,\[SEP\]' "$T/all.out" && pass \
    || fail "model --text recipe: the pair's tokens"
grep -q '"sentB":7' "$clone/out/bert.html" && grep -q banana "$clone/out/bert.html" && pass \
    || fail "model --html recipe: a page of the pair's tokens with sentence B at token 7"
