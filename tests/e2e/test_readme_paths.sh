# Every path of the source tree that README.md or src/README.md (the source map) names (a word
# starting src/, include/, tests/ or data/) exists, so that both stay true when files move. Paths with
# the placeholder NAME (src/arch/NAME.cpp) are patterns, not files, and are skipped.
# e2e: not under a sanitizer: a check of the READMEs' paths, no run of attn
readme_paths() {  # readme_paths FILE: the tree paths FILE names, one per line
    grep -oE '(^|[^A-Za-z0-9_./-])(src|include|tests|data)/[A-Za-z0-9_./-]*' "$1" |
        sed -E 's/^[^sitd]//; s/[.,]+$//' | grep -v 'NAME' | sort -u
}
for doc in README.md src/README.md; do
    readme_paths "$ROOT/$doc" >"$T/paths"
    n=$(wc -l <"$T/paths")
    [ "$n" -ge 10 ] && pass || fail "$doc paths: only $n paths found; is the pattern still right?"
    while IFS= read -r p; do
        [ -e "$ROOT/$p" ] && pass || fail "$doc names $p, which does not exist"
    done <"$T/paths"
done
# The check itself can fail: a made-up path is found and reported missing.
printf 'see `src/no_such_folder/gone.cpp`, and src/arch/NAME.cpp\n' >"$T/fake.md"
[ "$(readme_paths "$T/fake.md")" = src/no_such_folder/gone.cpp ] && [ ! -e "$ROOT/src/no_such_folder" ] && pass \
    || fail "README paths: the pattern missed a made-up path or kept a placeholder"
