# Where a run reads and writes: at most one input is standard input, claimed before anything
# is read; standard streams and devices are written in place; two outputs of one run never
# name the same file or both standard output. (From the second adversarial audit of attend:
# each finding written failing-first.)

printf '1 2\n0.5 -1\n' > "$T/q2"
printf '1 0\n0 1\n2 1\n' > "$T/k2"

# "-o - is standard output ... devices, FIFOs and standard output are written in place".
# -o /dev/stdout (or /dev/stderr) with the stream redirected to a file replaced that file by
# a new one: what the shell wrote there before and after attn (`>> log`) was lost.
printf '1 2\n' > "$T/row"
printf 'earlier\n' > "$T/log"
{ echo before; "$ATTN" softmax "$T/row" --format csv -o /dev/stdout; echo after; } >> "$T/log" 2> /dev/null
printf 'earlier\nbefore\n0.268941432,0.731058598\nafter\n' > "$T/log_expected"
if cmp -s "$T/log" "$T/log_expected"; then pass; else fail "-o /dev/stdout >> log: $(tr '\n' '|' < "$T/log")"; fi
printf 'earlier\n' > "$T/errlog"
{ echo before >&2; "$ATTN" softmax "$T/row" --format csv -o /dev/stderr; echo after >&2; } 2>> "$T/errlog" > /dev/null
printf 'earlier\nbefore\n0.268941432,0.731058598\nafter\n' > "$T/errlog_expected"
if cmp -s "$T/errlog" "$T/errlog_expected"; then pass; else fail "-o /dev/stderr 2>> log: $(tr '\n' '|' < "$T/errlog")"; fi

# Two inputs on '-' were caught only when the second was read, after the first had taken
# standard input: the message was about its bytes ("--mask is 1x1 but the scores are 2x3",
# "no numbers found"). Every '-' is now claimed before anything is read.
for pair in "--lengths - --mask -" "--mask - --bias -" "--labels - --key-labels -" "--bias - --mask -"; do
    # shellcheck disable=SC2086  # word splitting of $pair is intended
    printf '1\n' | "$ATTN" attend -q "$T/q2" -k "$T/k2" -v "$T/k2" $pair >"$T/out" 2>"$T/err"; CODE=$?
    expect_code 2 "attend $pair"
    expect_err_has "at most one input may be '-'" "attend $pair: the message"
done

# Two outputs of one run naming the same file kept only the last one written, exit 0: --svg F
# -o F lost the picture, --svg F --html F one of the two, --svg DIR/weights.npy -o DIR the
# weights or the picture. Refused (usage) before anything is written.
for pair in "--svg $T/same.out -o $T/same.out" "--svg $T/same.out --html $T/same.out -o /dev/null" \
            "--show weights,context --format npy -o $T/samedir --svg $T/samedir/weights.npy"; do
    rm -rf "$T/same.out" "$T/samedir"
    # shellcheck disable=SC2086  # word splitting of $pair is intended
    run attend -q "$T/q2" -k "$T/k2" -v "$T/k2" $pair
    expect_code 2 "attend $pair"
    expect_err_has "name the same file" "attend $pair: the message says why"
    if [ -e "$T/same.out" ] || [ -e "$T/samedir" ]; then fail "attend $pair left a file"; else pass; fi
done
# -o /dev/stdout with standard output a pipe: /dev/stdout links to "pipe:[N]", and attn tried
# to make a temporary file in /proc/self/fd (exit 1). It is standard output, written in place.
"$ATTN" attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --format csv -o /dev/stdout 2>"$T/err" | cat > "$T/via_dev"
code=${PIPESTATUS[0]}
"$ATTN" attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --format csv > "$T/via_dash"
if [ "$code" = 0 ] && [ -s "$T/via_dev" ] && cmp -s "$T/via_dev" "$T/via_dash"; then pass
else fail "-o /dev/stdout into a pipe: exit $code, $(head -c 200 "$T/err")"; fi
# Two outputs on standard output, one named by a path that is it, were glued together (exit 0);
# --svg - -o - printed the SVG alone, dropping the matrices -o - asked for.
for pair in "--svg - -o /dev/stdout --show weights" "--svg /dev/stdout --show weights" "--svg - -o -"; do
    # shellcheck disable=SC2086  # word splitting of $pair is intended
    run attend -q "$T/q2" -k "$T/k2" -v "$T/k2" $pair
    expect_code 2 "attend $pair: two outputs on standard output"
    expect_out_empty "attend $pair: nothing printed"
done
# ... also through a symbolic link whose target does not exist yet (the SVG was lost, exit 0).
rm -f "$T/same.t" "$T/same.l"; ln -s same.t "$T/same.l"
run attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --svg "$T/same.l" -o "$T/same.t"
expect_code 2 "--svg LINK -o TARGET, the link dangling"
if [ -e "$T/same.t" ]; then fail "--svg LINK -o TARGET wrote a file"; else pass; fi
run attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --svg /dev/null --html /dev/null -o /dev/null
expect_code 0 "--svg, --html and -o all /dev/null (a device, written in place) is fine"
# Outputs are compared by the folder's device and inode, not its path: a bind mount of the
# folder names the same file by another path, and --svg ALIAS/F -o REAL/F kept only the csv,
# exit 0 (second audit, F8). Needs a mount namespace: root's, or a user namespace's.
mkdir "$T/real" "$T/alias"
if [ "$(id -u)" -eq 0 ]; then ns="unshare -m"; else ns="unshare -r -m"; fi
# shellcheck disable=SC2016,SC2086  # $0.. belong to the inner shell; $ns splits into words
if $ns sh -c 'mount --bind "$0" "$1"' "$T/real" "$T/alias" 2>/dev/null; then
    # shellcheck disable=SC2016,SC2086  # $0.. belong to the inner shell; $ns splits into words
    $ns sh -c 'mount --bind "$0" "$1" && exec "$2" attend -q "$3" -k "$4" -v "$4" --svg "$1/w.out" -o "$0/w.out"' \
        "$T/real" "$T/alias" "$ATTN" "$T/q2" "$T/k2" >"$T/out" 2>"$T/err"
    CODE=$?; ERR=$(cat "$T/err")
    expect_code 2 "--svg BIND_MOUNT/F -o FOLDER/F"
    expect_err_has "two outputs of this run name the same file" "--svg BIND_MOUNT/F -o FOLDER/F: the message"
    if [ -e "$T/real/w.out" ]; then fail "--svg BIND_MOUNT/F -o FOLDER/F wrote a file"; else pass; fi
else
    echo "[e2e] $E2E_FILE: no mount namespace here, the bind-mount case is not run"
fi
# A symbolic link to the folder (not a mount) is the same folder too.
ln -s real "$T/dirlink"
run attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --svg "$T/dirlink/w.out" -o "$T/real/w.out"
expect_code 2 "--svg DIR_LINK/F -o DIR/F"
# Two names of one file (a hard link) are two entries: each is replaced by its own output.
printf 'old\n' > "$T/real/a.out"; ln "$T/real/a.out" "$T/real/b.out"
run attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --format csv --svg "$T/real/b.out" -o "$T/real/a.out"
expect_code 0 "--svg HARD_LINK -o FILE"
if grep -q '<svg' "$T/real/b.out" && grep -q '^[0-9.-]*,' "$T/real/a.out"; then pass
else fail "--svg HARD_LINK -o FILE: each name should hold its own output"; fi

# -o NEWDIR/ (a trailing slash, the folder not there yet) of several npy results: the folder
# made once (it was staged twice, as "new/" and "new", and the run failed with "File exists").
run attend -q "$T/q2" -k "$T/k2" -v "$T/k2" --show weights,context --format npy -o "$T/slash_new/"
expect_code 0 "-o NEWDIR/ of two npy results"
if [ -f "$T/slash_new/weights.npy" ] && [ -f "$T/slash_new/context.npy" ]; then pass
else fail "-o NEWDIR/: $(ls -A "$T/slash_new" 2>&1)"; fi
