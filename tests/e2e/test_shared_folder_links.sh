# Symbolic links in a shared folder (sticky and world-writable, as /tmp): the rule of the
# kernel's fs.protected_symlinks holds for every output, whatever that setting is. A link there
# is followed only by its owner, or when the folder's owner owns it too; anything else may have
# been planted by another user to aim our output at a file of ours (second audit, F1).
mkdir "$T/shared" && chmod 1777 "$T/shared"
printf '1 2\n3 4\n' > "$T/x"

# Our own link in the shared folder is written through, as everywhere else.
echo old > "$T/mine.csv"
ln -s "$T/mine.csv" "$T/shared/mine.csv"
run random --seed 1 --shape 2,2 -o "$T/shared/mine.csv"
expect_code 0 "-o OWN_LINK in a sticky world-writable folder"
if [ -L "$T/shared/mine.csv" ] && grep -qx '0.661352158,0.266924113' "$T/mine.csv"; then pass
else fail "-o OWN_LINK in a shared folder: not written through"; fi

# A link another user planted: planting one as another owner needs root (chown -h).
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
    printf 'victim\n' > "$T/victim"; chmod 600 "$T/victim"
    plant() {  # plant NAME TARGET [FOLDER]: a link owned by nobody
        ln -s "$2" "${3:-$T/shared}/$1" && chown -h nobody "${3:-$T/shared}/$1"
    }
    plant out.csv "$T/victim"
    plant out.svg "$T/victim"
    plant out.html "$T/victim"
    plant dangling.csv "$T/created-by-root.csv"
    for out in "-o $T/shared/out.csv" "--svg $T/shared/out.svg" "--html $T/shared/out.html" \
               "-o $T/shared/dangling.csv"; do
        # shellcheck disable=SC2086  # word splitting of $out is intended
        run attend -x "$T/x" --show weights $out
        expect_code 1 "attend $out: a link planted by another user in a shared folder"
        expect_err_has "belongs to another user (uid $(id -u nobody))" "attend $out: the message says why"
        expect_out_empty "attend $out: nothing printed"
    done
    if [ "$(cat "$T/victim")" = victim ]; then pass; else fail "a planted link's target was replaced"; fi
    if [ -e "$T/created-by-root.csv" ]; then fail "a planted dangling link's target was created"; else pass; fi
    # The whole chain is checked: our own link leading to a planted one.
    ln -s "$T/shared/out.csv" "$T/chain.csv"
    run random --seed 1 --shape 2,2 -o "$T/chain.csv"
    expect_code 1 "-o LINK to a planted link"
    # -o DIR where DIR is a planted link to a folder of ours: nothing is written into it.
    mkdir "$T/victim.d"
    plant outdir "$T/victim.d"
    run attend -x "$T/x" --format npy --show weights,context -o "$T/shared/outdir"
    expect_code 1 "attend -o PLANTED_DIR_LINK"
    run random --seed 1 --shape 2,2 --count 3 --format npy -o "$T/shared/outdir"
    expect_code 1 "random --count -o PLANTED_DIR_LINK"
    if [ -z "$(ls -A "$T/victim.d")" ]; then pass; else fail "-o PLANTED_DIR_LINK wrote into its target"; fi
    # What the kernel allows is followed: the folder's owner owns the link too, or the folder
    # is not sticky.
    mkdir "$T/theirs" && chmod 1777 "$T/theirs" && chown nobody "$T/theirs"
    plant out.csv "$T/theirs.csv" "$T/theirs"
    mkdir "$T/open" && chmod 0777 "$T/open"
    plant out.csv "$T/open.csv" "$T/open"
    for d in theirs open; do
        run random --seed 1 --shape 2,2 -o "$T/$d/out.csv"
        expect_code 0 "-o LINK of nobody in a folder ($d) where the kernel would follow it"
        if grep -qx '0.661352158,0.266924113' "$T/$d.csv"; then pass; else fail "-o LINK ($d): not written through"; fi
    done
fi
