# Help pages, the man page and the shell completions: every command's help comes from its
# cxxopts options, `attn help CMD` prints it, every EXAMPLES line runs as shown, and the man
# page and completions list every option.
BUILD_DIR=$(dirname "$ATTN")
run --help
commands=$(awk '/^Commands:/ {on = 1; next} on && /^$/ {exit} on && /^  [a-z]/ {print $1}' "$T/out")
if [ "$(wc -w <<<"$commands")" -ge 9 ]; then pass; else fail "attn --help lists the commands: got '$commands' (exit $CODE; stderr: $ERR)"; fi

# ---- attn help CMD = attn CMD --help; attn help; unknown commands ----
for c in $commands; do
    "$ATTN" help "$c" >"$T/help_$c.txt" 2>"$T/err"; code=$?
    "$ATTN" "$c" --help >"$T/dash_$c.txt" 2>&1
    if [ $code -eq 0 ] && cmp -s "$T/help_$c.txt" "$T/dash_$c.txt"; then pass; else fail "attn help $c differs from attn $c --help (exit $code)"; fi
    if head -n 1 "$T/help_$c.txt" | grep -q "^attn $c — "; then pass; else fail "help $c starts with its NAME line"; fi
    if grep -q '^Usage:$' "$T/help_$c.txt" && grep -q '^Examples:$' "$T/help_$c.txt"; then pass; else fail "help $c has Usage and Examples"; fi
    # plain headings, never cxxopts' "Group (...) options:"
    if grep -q 'options:$' "$T/help_$c.txt"; then fail "help $c shows a cxxopts section heading"; else pass; fi
done
run help; expect_code 0 "attn help"
expect_out_has "Commands:" "attn help is the top-level help"
run help nosuch; expect_code 2 "attn help nosuch"
expect_err_has "help: no command named 'nosuch'" "attn help nosuch says why"
run help attend; expect_out_has "attn attend — " "attn help attend prints attend's help, not the top level"

# attend's groups in the order a user needs them
order=$(grep -n -E '^(Inputs|Attention|Output|Execution):$' "$T/help_attend.txt" | cut -d: -f2 | tr '\n' ' ')
if [ "$order" = "Inputs Attention Output Execution " ]; then pass; else fail "attend's groups in order: got '$order'"; fi

# ---- wrapping: COLUMNS, with a hanging indent; example commands are never wrapped ----
for width in 60 100; do
    COLUMNS=$width "$ATTN" help attend >"$T/wrapped.txt"
    long=$(LC_ALL=C.UTF-8 bash -c 'on=1; while IFS= read -r l; do [ "$l" = "Examples:" ] && on=0; (( on && ${#l} > '$width' )) && echo "$l"; done' <"$T/wrapped.txt")
    if [ -z "$long" ]; then pass; else fail "COLUMNS=$width: lines wider than $width: $long"; fi
    # a continuation line of an option's description starts in the description column
    col=$(grep -m1 -- '^  --show LIST ' "$T/wrapped.txt" | sed -E 's/^(  --show LIST +).*/\1/' | wc -c)
    next=$(grep -m1 -A1 -- '^  --show LIST ' "$T/wrapped.txt" | tail -n 1 | sed -E 's/^( *).*/\1/' | wc -c)
    if [ "$col" -gt 5 ] && [ "$col" -eq "$next" ]; then pass; else fail "COLUMNS=$width: hanging indent ($col vs $next)"; fi
done

# ---- every option declared in the sources is in some help page (an independent list:
# the cxxopts declarations, one per line, as the sources write them) ----
positional=$(grep -ho 'parse_positional({[^}]*})' $(find "$ROOT"/src/cli -name '*.cpp') | grep -o '"[a-z-]*"' | tr -d '"')
declared=$(grep -hoE '(^\s*|add_options\([^)]*\))\("([a-z],)?[a-z][a-z0-9-]*",' $(find "$ROOT"/src/cli -name '*.cpp') |
           sed -E 's/.*\("(([a-z]),)?([a-z][a-z0-9-]*)",/\3/' | sort -u)
cat "$T"/help_*.txt >"$T/all_help.txt"
n=0
all_help=$(<"$T/all_help.txt")
for o in $declared; do
    [[ $'\n'$positional$'\n' == *$'\n'$o$'\n'* ]] && continue
    n=$((n + 1))
    if [ ${#o} -eq 1 ]; then flag="-$o"; else flag="--$o"; fi
    re=$'(^|\n)  (-[a-z], )?'"$flag"$'([ [,]|$|\n)'
    if [[ $all_help =~ $re ]]; then pass; else fail "declared option $flag is in no help page"; fi
done
if [ "$n" -ge 60 ]; then pass; else fail "found only $n declared options in the sources"; fi

# ---- every EXAMPLES line runs as shown, in an empty folder, in order ----
for c in $commands; do
    mkdir -p "$T/ex_$c"
    # `attn ls` needs a model file a user has: a small checkpoint from the fixtures.
    [ "$c" = ls ] && cp "$ROOT/data/models/small.safetensors" "$T/ex_$c/model.safetensors"
    # `attn tokenize` needs a model folder: the BERT tokenizer of the tokenizer test data.
    [ "$c" = tokenize ] && mkdir -p "$T/ex_$c/bert" &&
        gunzip -c "$ROOT/data/tokenize/bert-base-uncased/tokenizer.json.gz" >"$T/ex_$c/bert/tokenizer.json"
    # `attn model` needs a model folder: the tiny random BERT of data/models/tiny/.
    [ "$c" = model ] && cp -r "$ROOT/data/models/tiny/bert" "$T/ex_$c/bert-tiny"
    awk '/^Examples:$/ {on = 1; next} on && /^  / {sub(/^  /, ""); print}' "$T/help_$c.txt" >"$T/examples_$c.txt"
    lines=0
    while IFS= read -r line; do
        case $line in '#'*|'') continue ;; esac
        lines=$((lines + 1))
        (cd "$T/ex_$c" && PATH="$BUILD_DIR:$PATH" bash -o pipefail -c "$line") >"$T/ex_out" 2>"$T/ex_err" </dev/null
        code=$?
        if [ $code -eq 0 ] && [ -s "$T/ex_out" -o -n "$(ls -A "$T/ex_$c")" ]; then pass
        else fail "example of $c: '$line' exits $code: $(head -c 300 "$T/ex_err")"; fi
    done <"$T/examples_$c.txt"
    if [ $lines -ge 2 ] && [ $lines -le 6 ]; then pass; else fail "help $c has $lines example commands (2 to 6 wanted)"; fi
done

# help_flags CMD: the options that CMD's help page lists (-x or --name, one per word). The
# loops over them below match with [[ ]] rather than a grep per option (about 600 processes).
help_flags() {
    grep -oE -- '^  (-[a-zA-Z], )?--?[a-z][a-z0-9-]*' "$T/help_$1.txt" | grep -oE -- '--?[a-z][a-z0-9-]*$'
}

# ---- the man page: generated, renders without warnings, every option of every command ----
MAN=$BUILD_DIR/attn.1
[ -s "$MAN" ] || "$ATTN" help --man >"$MAN"
"$ATTN" help --man >"$T/attn.1"
if cmp -s "$MAN" "$T/attn.1"; then pass; else fail "$MAN is not what attn help --man prints"; fi
if head -n 3 "$MAN" | grep -q '^\.TH ATTN 1'; then pass; else fail "man page has .TH"; fi
for sh in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS EXAMPLES '"EXIT STATUS"' ENVIRONMENT; do
    if grep -qx ".SH $sh" "$MAN"; then pass; else fail "man page lacks .SH $sh"; fi
done
warnings=$(groff -ww -man -z "$MAN" 2>&1)
if [ -z "$warnings" ]; then pass; else fail "groff -ww warns: $warnings"; fi
MANWIDTH=80 man --warnings -l "$MAN" >"$T/man.txt" 2>"$T/man_err"
if [ $? -eq 0 ] && [ ! -s "$T/man_err" ]; then pass; else fail "man -l warns: $(head -c 300 "$T/man_err")"; fi
for var in ATTN_ARCH COLUMNS NO_COLOR COLORTERM; do
    if grep -q "^       $var" "$T/man.txt"; then pass; else fail "man page ENVIRONMENT lacks $var"; fi
done
# each command's OPTIONS subsection lists the options of its help page
for c in $commands; do
    awk -v head="   attn $c" '$0 == head {on = 1; next} on && /^   [^ ]/ {exit} on && /^[A-Z]/ {exit} on {print}' "$T/man.txt" >"$T/man_$c.txt"
    missing= section=$(<"$T/man_$c.txt")
    for flag in $(help_flags "$c"); do
        re="(^|[[:space:],])$flag([[:space:][,]|\$)"
        [[ $section =~ $re ]] || missing+=" $flag"
    done
    if [ -z "$missing" ]; then pass; else fail "man page section of $c lacks:$missing"; fi
done

# ---- make install honours PREFIX and DESTDIR ----
if [ -z "${ATTN_SANITIZER:-}" ] && command -v make >/dev/null; then
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -C "$ROOT" BUILD="$BUILD_DIR" \
        PREFIX=/opt/attn DESTDIR="$T/stage" install >"$T/install_log" 2>&1
    for f in bin/attn share/man/man1/attn.1 share/bash-completion/completions/attn share/zsh/site-functions/_attn; do
        if [ -s "$T/stage/opt/attn/$f" ]; then pass; else fail "make install lacks \$DESTDIR\$PREFIX/$f: $(tail -n 3 "$T/install_log")"; fi
    done
    # make uninstall removes every file install put there.
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -C "$ROOT" BUILD="$BUILD_DIR" \
        PREFIX=/opt/attn DESTDIR="$T/stage" uninstall >"$T/install_log" 2>&1
    left=$(find "$T/stage" -type f | head -n 3)
    if [ -z "$left" ]; then pass; else fail "make uninstall left: $left"; fi
    # A missing header package is named, with the command that installs it (here a header no
    # machine has stands for one; the real ones must pass the same check).
    if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -C "$ROOT" \
        HEADER_PACKAGES="attn-no-such/x.hpp:libattn-no-such-dev" check-headers >"$T/check_log" 2>&1; then
        fail "make check-headers passed with a header that does not exist"
    elif grep -q "missing Debian packages: libattn-no-such-dev (.make deps. installs them" "$T/check_log"; then pass
    else fail "make check-headers message: $(cat "$T/check_log")"; fi
    if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -C "$ROOT" check-headers >"$T/check_log" 2>&1
    then pass; else fail "make check-headers on this machine: $(cat "$T/check_log")"; fi
fi

# ---- bash completion ----
"$ATTN" completions bash >"$T/attn.bash"
if bash -n "$T/attn.bash"; then pass; else fail "bash -n on the bash completion"; fi
mkdir -p "$T/comp" && touch "$T/comp/q.npy" "$T/comp/keys.txt"
# complete WORD...: COMP_WORDS = attn WORD..., the cursor on the last; prints COMPREPLY sorted
complete() {
    (cd "$T/comp" && bash -c 'source "$1"; shift; COMP_WORDS=(attn "$@"); COMP_CWORD=$#; _attn; printf "%s\n" "${COMPREPLY[@]}"' _ "$T/attn.bash" "$@") | sort | tr '\n' ' '
}
expect_completion() {  # expect_completion EXPECTED WORD...
    local want=$1; shift
    local got; got=$(complete "$@")
    if [ "$got" = "$want" ]; then pass; else fail "completing 'attn $*': got '$got', expected '$want'"; fi
}
expect_completion "attend " att
expect_completion "--format " attend --fo
expect_completion "csv json npy npz pretty tsv " attend --format ''
expect_completion "csv json pretty tsv " variance --format ''
expect_completion "weights,context " attend --show weights,con
expect_completion "queries,weights,values queries,weights,variance " attend --show queries,weights,va
# --arch completes to auto and the arch table's names, as the man page lists them.
arch_words=$("$ATTN" help --man | sed -n 's/^Kernel set when .* is not given: \(.*\)\.$/\1/p' | sed 's/ or /, /; s/, / /g')
case " $arch_words " in " auto scalar "*) pass ;; *) fail "the man page lists no arches: '$arch_words'" ;; esac
expect_completion "$(printf '%s\n' $arch_words | grep '^a' | sort | tr '\n' ' ')" softmax --arch a
expect_completion "bottom-right top-left " attend --causal = ''
expect_completion "simple " example si
expect_completion "saturation scaling simple sliding-window " example s
expect_completion "attend " help at
expect_completion "--man " help --m  # help has no option table: its flags are the command's own
expect_completion "bash zsh " completions ''
expect_completion "keys.txt q.npy " attend -x ''
expect_completion "q.npy " attend -x -q q
# a file name with a space is one candidate, a '*' in it is not a pattern
touch "$T/comp/my file.npy" "$T/comp/my*.npy"
expect_completion "my file.npy my*.npy " attend -x my
rm -f "$T/comp/my file.npy" "$T/comp/my*.npy"
expect_completion "--mask --masked-rows " attend --mas
expect_completion "matmul mha " bench --op m
expect_completion "--head-dims --help " bench --he
expect_completion " " attend --heads ''  # no values to offer (printf prints one empty line)
expect_completion "--causal --causal-offset " attend --causal
# the values of every option of a few fixed names (these had none; found by a help audit)
expect_completion "additive cosine dot general " attend --score ''
expect_completion "bf16 f16 f32 q8_0 " attend --kv-dtype ''
expect_completion "f32 f64 " attend --softmax-precision ''
expect_completion "half interleaved " attend --rope-style ''
expect_completion "sinusoidal " attend --pos ''
expect_completion "numpy torch " random --generator ''
expect_completion "bf16 f16 f32 " random --dtype ''
expect_completion "f32,q8_0 " bench --kv-dtype f32,q
expect_completion "fused,materialized " bench --paths fused,m
expect_completion "context " merge --show c
# ... and every value a completion offers is one its command accepts: each is run on inputs that
# command takes (a refusal of the combination is fine; "invalid --OPT 'V': expected ..." is not)
sx=$ROOT/data/examples/simple/x.txt
"$ATTN" softmax "$sx" --format npy -o "$T/comp_w.npy"
"$ATTN" attend -x "$sx" --key-rows 0:3 --show context,lse --format npz -o "$T/comp_a.npz"
"$ATTN" attend -x "$sx" --key-rows 3:6 --show context,lse --format npz -o "$T/comp_b.npz"
declare -A base=([attend]="-x $sx" [view]="$T/comp_w.npy --heatmap" [softmax]="$sx" [matmul]="$sx $sx --transpose-b"
    [example]="simple" [random]="--shape 2" [variance]="--dk 4 --batch 1" [bench]="--op attention --sizes 8 --repeat 1 --warmup 0"
    [concat]="$sx" [merge]="$T/comp_a.npz $T/comp_b.npz" [positions]="--shape 4,6"
    [tokenize]="$ROOT/data/models/tiny/bert --text hi" [model]="$ROOT/data/models/tiny/bert --ids 1,2")
awk '/^    [a-z]+\)$/ {c = substr($1, 1, length($1) - 1)}
     /^            --[a-z-]+\).*words="/ {o = $1; sub(/\).*/, "", o); w = $0; sub(/.*words="/, "", w); sub(/".*/, "", w)
                                          n = split(w, v, " "); for (i = 1; i <= n; i++) print c, o, v[i]}' "$T/attn.bash" >"$T/choices"
while read -r c o v; do
    # shellcheck disable=SC2086  # the base arguments are words
    "$ATTN" "$c" ${base[$c]} "$o=$v" >/dev/null 2>"$T/err" </dev/null
    if grep -qE -- "invalid $o (item )?'$v': expected" "$T/err"; then fail "attn $c $o=$v, a completion's value, is refused: $(head -c 200 "$T/err")"; else pass; fi
done <"$T/choices"
if [ "$(wc -l <"$T/choices")" -gt 60 ]; then pass; else fail "only $(wc -l <"$T/choices") completion values were found to run"; fi

# ---- zsh completion ----
"$ATTN" completions zsh >"$T/_attn"
if command -v zsh >/dev/null; then
    if zsh -n "$T/_attn"; then pass; else fail "zsh -n on the zsh completion"; fi
fi
if head -n 1 "$T/_attn" | grep -qx '#compdef attn'; then pass; else fail "_attn starts with #compdef attn"; fi
# The dispatch, with zsh's completion functions replaced by stubs that print what they get.
if command -v zsh >/dev/null; then
    zsh_complete() {  # zsh_complete WORD...: what _attn hands to _describe/_arguments
        zsh -fc '_describe() { print -l -- "${(@P)${@[-1]}}" }
                 _arguments() { shift 2; print -l -- "$@" }
                 source "$1"; shift; words=(attn "$@"); CURRENT=$#words; _attn' _ "$T/_attn" "$@"
    }
    if zsh_complete att | grep -q '^attend:scaled dot-product attention'; then pass; else fail "zsh: attn att<TAB> offers attend"; fi
    if zsh_complete attend --fo | grep -qF -- "--format=[Output format"; then pass; else fail "zsh: attn attend --fo<TAB> offers --format"; fi
    if zsh_complete attend --causal= | grep -qF -- ']::ALIGN:(top-left bottom-right)'; then pass; else fail "zsh: --causal=ALIGN choices"; fi
    if zsh_complete example s | grep -q '^\*:argument:(simple trainable'; then pass; else fail "zsh: example names"; fi
    if zsh_complete softmax '' | grep -q '^\*:file:_files$'; then pass; else fail "zsh: softmax FILE completes files"; fi
fi
missing=
for c in $commands; do
    awk -v c="    $c)" '$0 == c {on = 1; next} on && /^        ;;$/ {exit} on {print}' "$T/_attn" >"$T/zsh_$c.txt"
    section=$(<"$T/zsh_$c.txt")
    for flag in $(help_flags "$c"); do
        re="'$flag[+=[]"
        [[ $section =~ $re ]] || missing+=" $c:$flag"
    done
done
if [ -z "$missing" ]; then pass; else fail "zsh completion lacks:$missing"; fi
if grep -q "'--format=\[[^]]*\]:FMT:(pretty csv tsv json npy npz)'" "$T/zsh_attend.txt"; then pass; else fail "zsh: attend --format completes the formats"; fi

# ---- errors name the option; positional names are not '--name' ----
run softmax --threads abc; expect_code 2 "--threads abc"
expect_err_has "invalid --threads 'abc': expected an integer" "--threads abc names the option"
run random --shape 2 --uniform=abc; expect_code 2 "--uniform=abc"
expect_err_has "invalid --uniform='abc': --uniform takes no value" "--uniform=abc names the option"
run attend -x x --heads=99999999999999; expect_code 2 "--heads out of range"
expect_err_has "invalid --heads '99999999999999': expected an integer from 1 to 65536" "--heads out of range names the option"
echo "1 2" >"$T/x"
run softmax --threads +2 "$T/x"; expect_code 2 "--threads +2 is refused"
expect_err_has "invalid --threads '+2': expected an integer without '+'" "the message says what is wrong with '+2'"
run bench --op attention --sizes 5x --repeat 1; expect_code 2 "bench --sizes 5x is refused"
expect_err_has "invalid --sizes entry '5x': expected N, TqxTk or BxHxTqxTk" "the message quotes the entry, not an empty part"
run softmax --digits 18 "$T/x"; expect_code 2 "--digits 18 is refused"
expect_err_has "invalid --digits '18': expected an integer from 0 to 17" "softmax --digits range"
run example simple --digits 18; expect_code 2 "example --digits 18 is refused"
expect_err_has "invalid --digits '18': expected an integer from 0 to 17" "example --digits range (the same rule)"
run bench -d 64 --repeat 1x; expect_code 2 "--repeat 1x"
expect_err_has "invalid --repeat '1x'" "--repeat 1x names the option"
run example simple trainable; expect_code 2 "two example names"
expect_err_has "positional arguments 'simple' and 'trainable'" "two example names: about positional arguments"
if grep -q -- '--name' "$T/err"; then fail "two example names mention --name"; else pass; fi
