# Standard input holds what a file would: one result of several is -:NAME (FILE:NAME has no
# file name to give there), in any number of inputs of one run, and an .npz or torch.save
# file piped in is read by its bytes (a file's name tells its format; a pipe has none).

si=$T/si
mkdir -p "$si"
"$ATTN" random --seed 0 --shape 4,8 --format npy -o "$si/x.npy"

# nanoGPT's wei @ v from one run's output on a pipe: the weights times the values are the context
"$ATTN" attend -x "$si/x.npy" --show context --format npy -o "$si/context.npy"
"$ATTN" attend -x "$si/x.npy" --show weights,values --format csv |
    "$ATTN" matmul -:weights -:values --format npy -o "$si/wv.npy" 2>"$T/err"
if "$(dirname "$ATTN")/allclose" "$si/wv.npy" "$si/context.npy" --atol 1e-6 2>>"$T/err"; then pass
else fail "matmul -:weights -:values: $(cat "$T/err")"; fi

# two results on '-' say how to name one there
"$ATTN" attend -x "$si/x.npy" --show weights,values --format csv > "$si/wv.csv"
run_in "$si/wv.csv" softmax -
expect_code 3 "two results on '-'"
expect_err_has "name one, as -:weights" "the hint names -:NAME"
run_in "$si/wv.csv" softmax -:nope
expect_code 3 "-:NAME of no result"
expect_err_has "<stdin>: no result 'nope' (it holds: weights, values)" "the results are listed"
run_in "$si/wv.csv" softmax -:
expect_code 2 "-: names nothing"
# '-' reads all of standard input: with another reader of it, a usage error up front
run_in "$si/wv.csv" matmul - -:values
expect_code 2 "- beside -:NAME"
expect_err_has "at most one input may be '-' (several may name results of it, as -:NAME)" "the rule"
# an option misspelt beside -:NAME is still named, with the closest one
run_in "$si/wv.csv" softmax -:weights --scael 2
expect_code 2 "unknown option beside -:NAME"
expect_err_has "option 'scael' does not exist; did you mean '--scale'?" "did you mean, beside -:NAME"
# a file named -:NAME is that file
# -:NAME is standard input's whatever the folder holds, as '-' is (a file named -:w read
# instead of the pipe gave its numbers, exit 0; found by a pipelines audit); the file is ./-:w,
# and -o -:w, which made one, is refused
( cd "$si" && printf '1 2\n' > ./-:w && printf '# w 1x2\n5 5\n' | "$ATTN" softmax -:w --format csv ) > "$T/out" 2>"$T/err"
expect_out_has "0.5,0.5" "-:w beside a file named -:w reads standard input"
( cd "$si" && "$ATTN" softmax ./-:w --format csv ) > "$T/out" 2>"$T/err" </dev/null
expect_out_has "0.268941432,0.731058598" "the file is ./-:w"
( cd "$si" && "$ATTN" random --shape 2 --seed 0 -o -:draw --format npy ) > "$T/out" 2>"$T/err" </dev/null; CODE=$?
expect_code 2 "-o -:draw"
expect_err_has "write the file as ./-:draw" "-o -:draw: the way out"

# an .npz on '-': its only array, or -:NAME one of several (as FILE.npz:NAME reads it)
"$ATTN" random --seed 1 --shape 3,5 --count 2 --format npz -o "$si/draws.npz"
"$ATTN" concat "$si/draws.npz:draw1" --format npy -o "$si/draw1.npy"
"$ATTN" concat -:draw1 --format npy -o "$si/got.npy" < "$si/draws.npz" 2>"$T/err"
if cmp -s "$si/got.npy" "$si/draw1.npy"; then pass; else fail "-:draw1 of an npz on stdin: $(cat "$T/err")"; fi
run_in "$si/draws.npz" softmax -
expect_code 3 "an npz of two arrays on '-'"
expect_err_has "<stdin>: an .npz of 2 tensors (draw0, draw1): name one as -:NAME" "the arrays are listed"
"$ATTN" random --seed 1 --shape 3,5 --format npz | "$ATTN" softmax - --format npy -o "$si/sm.npy" 2>"$T/err"
"$ATTN" softmax "$si/draws.npz:draw0" --format npy -o "$si/sm_file.npy"
if cmp -s "$si/sm.npy" "$si/sm_file.npy"; then pass; else fail "random --format npz | softmax -: $(cat "$T/err")"; fi

# a bool npz mask on '-' is boolean, as from a file (the archive made by Python's zipfile, no numpy)
for p in python3 /usr/bin/python3; do command -v "$p" >/dev/null && break; done
"$p" -c "import zipfile, sys; zipfile.ZipFile(sys.argv[2], 'w').write(sys.argv[1], 'mask.npy')" \
    "$ROOT/data/fixtures/mask_b1.npy" "$si/mask.npz"
"$ATTN" random --seed 4 --shape 2,4 --format npy -o "$si/q.npy"
"$ATTN" random --seed 5 --shape 3,4 --format npy -o "$si/k.npy"
attend_k=(attend -q "$si/q.npy" -k "$si/k.npy" -v "$si/k.npy" --show weights --format csv)
"$ATTN" "${attend_k[@]}" --attn-mask "$ROOT/data/fixtures/mask_b1.npy" > "$si/w_file.csv"
for m in - -:mask; do
    run_in "$si/mask.npz" "${attend_k[@]}" --attn-mask $m
    if [ "$CODE" = 0 ] && [ "$OUT" = "$(<"$si/w_file.csv")" ]; then pass; else fail "a bool npz mask on stdin as $m: $ERR"; fi
done
# ... and a mask PyTorch printed (True, False), selected by name, is boolean as a whole one is
{ echo '# mask 2x3'; echo 'True False True'; echo 'False True True'; echo '# other 1x1'; echo 1; } > "$si/mask.txt"
for m in "$si/mask.txt:mask" -:mask; do
    run_in "$si/mask.txt" "${attend_k[@]}" --attn-mask "$m"
    if [ "$CODE" = 0 ] && [ "$OUT" = "$(<"$si/w_file.csv")" ]; then pass; else fail "a True/False mask selected as $m: $ERR"; fi
done

# inputs read whole (labels, lengths) refuse -:NAME; an empty standard input says so
run_in "$si/wv.csv" attend -x "$si/x.npy" --labels -:labels
expect_code 2 "--labels -:NAME"
expect_err_has "this input reads a whole file, or '-'" "--labels -:NAME: why"
run_in /dev/null matmul -:weights -:values
expect_code 3 "-:NAME of an empty stdin"
expect_err_has "<stdin>: empty: it holds no result 'weights'" "empty stdin: the message"
# beside -:NAME (cxxopts then lets unknown words through) a malformed or unknown option is named
run_in "$si/wv.csv" softmax --d -:weights
expect_err_has "option 'd' does not exist" "--d beside -:NAME"
run_in "$si/wv.csv" matmul -.5 -:weights
expect_err_has "argument '-.5' starts with a - but has incorrect syntax" "-.5 beside -:NAME"
run_in "$si/wv.csv" softmax -:weights extra --bogus
expect_err_has "option 'bogus' does not exist" "an unknown option after a stray word"
# concat and merge take a file named -:w as ./-:w too
( cd "$si" && "$ATTN" concat ./-:w --format csv ) > "$T/out" 2>"$T/err" </dev/null
expect_out_has "1,2" "concat of an existing file ./-:w"

# torch.save files on '-', zip and legacy
for f in state_dict legacy; do
    pt=$ROOT/data/models/torch_save/$f.pt
    name=$("$ATTN" ls "$pt" | awk 'NR == 2 {print $1}')
    "$ATTN" concat "$pt:$name" --format npy -o "$si/$f.npy"
    "$ATTN" concat "-:$name" --format npy -o "$si/got.npy" < "$pt" 2>"$T/err"
    if cmp -s "$si/got.npy" "$si/$f.npy"; then pass; else fail "-:$name of $f.pt on stdin: $(cat "$T/err")"; fi
done

# A pipe or FIFO given by name (<(...)'s /dev/fd/N, /dev/stdin, mkfifo) holds what a file would:
# FILE:NAME selects a result (it said "No such file or directory"), an .npz there is told by its
# bytes, and merge reads a shard's context and lse from one (read once). Found by a pipelines audit.
run concat <("$ATTN" random --seed 1 --shape 3,5 --count 2 --format csv):'draw 1' --format npy -o "$si/got.npy"
if cmp -s "$si/got.npy" "$si/draw1.npy"; then pass; else fail "<(...):'draw 1': $ERR"; fi
run concat <("$ATTN" random --seed 1 --shape 3,5 --count 2 --format npz):draw1 --format npy -o "$si/got.npy"
if cmp -s "$si/got.npy" "$si/draw1.npy"; then pass; else fail "<(npz):draw1: $ERR"; fi
"$ATTN" attend -x "$si/x.npy" --key-rows 0:2 --show context,lse --format npz -o "$si/s0.npz"
"$ATTN" attend -x "$si/x.npy" --key-rows 2:4 --show context,lse --format npz -o "$si/s1.npz"
"$ATTN" merge "$si/s0.npz" "$si/s1.npz" --show context --format npy -o "$si/merged_files.npy"
run merge <(cat "$si/s0.npz") <("$ATTN" attend -x "$si/x.npy" --key-rows 2:4 --show context,lse --format csv) \
    --show context --format npy -o "$si/merged_pipes.npy"
if cmp -s "$si/merged_pipes.npy" "$si/merged_files.npy"; then pass; else fail "merge of two pipes: $ERR"; fi

# One stream named two ways is read once (keyed by the stream, not its name): -:weights with
# /dev/stdin:values said standard input was empty; a FIFO named ff and ./ff waited forever.
# /dev/stdin redirected from an .npz is a stream too. Found by a review.
"$ATTN" attend -x "$si/x.npy" --show weights,values --format npz -o "$si/wv.npz"
run_in "$si/wv.csv" matmul -:weights /dev/stdin:values --format npy -o "$si/two_ways.npy"
if cmp -s "$si/two_ways.npy" "$si/wv.npy"; then pass; else fail "-:weights /dev/stdin:values: $ERR"; fi
rm -f "$si/ff"; mkfifo "$si/ff"
cat "$si/wv.csv" > "$si/ff" &
( cd "$si" && timeout 10 "$ATTN" matmul ff:weights ./ff:values --format npy -o two_names.npy ) 2>"$T/err"; CODE=$?
expect_code 0 "a FIFO named ff and ./ff"
if cmp -s "$si/two_names.npy" "$si/wv.npy"; then pass; else fail "ff:weights ./ff:values: $(cat "$T/err")"; fi
wait
run_in "$si/wv.npz" matmul /dev/stdin:weights /dev/stdin:values --format npy -o "$si/from_npz.npy"
if cmp -s "$si/from_npz.npy" "$si/wv.npy"; then pass; else fail "/dev/stdin:NAME of a redirected .npz: $ERR"; fi
run concat <(cat "$si/wv.npz")
expect_err_has "name one as /dev/fd/" "an archive on a named pipe: the hint names it"
