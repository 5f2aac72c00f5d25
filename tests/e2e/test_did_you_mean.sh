# A mistyped command, option or value is refused (exit 2, nothing on stdout) with the nearest
# names it could mean, as git and cargo suggest; a word near nothing gets no suggestion.
X=$ROOT/data/examples/simple/x.txt
# the words | what stderr must say
cases=(
    "attnd|unknown command 'attnd'; did you mean 'attend'?"
    "sofmtax -|unknown command 'sofmtax'; did you mean 'softmax'?"
    "attend --shwo weights -x $X|option 'shwo' does not exist; did you mean '--show'?"
    "attend --heds 2 -x $X|option 'heds' does not exist; did you mean '--heads'?"
    "random --shpe 2,3|option 'shpe' does not exist; did you mean '--shape'?"
    "attend --show weight -x $X|; did you mean 'weights'?"
    "attend --show weights,contxt -x $X|invalid --show item 'contxt'"
    "softmax --masked-rows unifrom $X|; did you mean 'uniform'?"
    "attend --causal=botom-right -x $X|; did you mean 'bottom-right'?"
    "attend --normalize sofmax -x $X|; did you mean 'softmax'?"
    "attend --format jsn -x $X|invalid --format 'jsn': expected pretty, csv, tsv, json, npy or npz; did you mean 'json'?"
    "attend --format JSON -x $X|; did you mean 'json'?"
    "attend --svg-of weigths --svg s.svg -x $X|; did you mean 'weights'?"
    "random --shape 2 --dtype f61|; did you mean 'f16'?"
    "bench --op atention|; did you mean 'attention'?"
    "bench --format tabel|; did you mean 'table'?"
    "example simpel|no example named 'simpel'; did you mean 'simple'?"
    "help attnd|help: no command named 'attnd'; did you mean 'attend'?"
    "completions zhs|; did you mean 'zsh'?"
    "bench --kv-dtype f61|; did you mean 'f16'?"
    "attend --arch scalr -x $X|; did you mean 'scalar'?"
    "attend --scale autp -x $X|invalid --scale 'autp': expected auto, none or a number; did you mean 'auto'?"
    "random --shape 2 --torch-kernel scalr|; did you mean 'scalar'?"
    "variance --torch-kernel avx3|; did you mean 'avx2'?"
    "model . --ids 1 --show attention|; did you mean 'attentions'?"
    "tokenize . --text a --format jsn|; did you mean 'json'?"
    "view $X --dims layr,head --heatmap|; did you mean 'layer'?"
    "merge s.npz --show contxt|; did you mean 'context'?"
    "help --mann|help: no option '--mann'; did you mean '--man'?"
)
for c in "${cases[@]}"; do
    IFS='|' read -r words want <<<"$c"
    read -ra argv <<<"$words"
    (cd "$T" && "$ATTN" "${argv[@]}" >"$T/out" 2>"$T/err" </dev/null); CODE=$?; ERR=$(cat "$T/err")
    expect_code 2 "$words"
    expect_out_empty "$words"
    expect_err_has "$want" "$words"
done
# Nothing near: no suggestion at all.
for words in "xyzzy" "attend --zzzz 1 -x $X" "attend --show zzz -x $X" "example bahdanau-additive-xyz"; do
    read -ra argv <<<"$words"
    run "${argv[@]}"
    expect_code 2 "$words"
    if grep -q 'did you mean' "$T/err"; then fail "$words: a suggestion for a word near nothing: $ERR"; else pass; fi
done
