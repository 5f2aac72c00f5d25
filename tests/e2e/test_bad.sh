# The malformed-input battery: every tests/bad/*.case is one case, as data:
#   args: ARGS        attn's arguments (shell words; IN is the case's input file, in the
#                     case's own empty folder, which is the working directory)
#   exit: N           the expected exit status (1 runtime, 2 usage, 3 input)
#   message: TEXT     a fragment the error message on stderr must contain
#   stdin: IN         optional: IN is standard input (otherwise /dev/null)
#   setup: COMMAND    optional: shell command run in the folder first (mkfifo, a big stream, ...)
#   input-printf: FMT optional: IN is printf FMT (binary inputs)
#   ---               optional: IN is everything after this line, byte for byte
# Each runs under ulimit -v (4 GB; skipped under sanitizers, which reserve terabytes of address
# space) and a 30 s timeout, and must leave stdout empty, exit with the code, print the
# message, and leave no file behind in its folder (nor anything but the input).
bad_dir=$ROOT/tests/bad
bad_count=0
# names_in VAR DIR: VAR = the names DIR holds, hidden ones too (globs: no process).
names_in() {
    local n names=()
    for n in "$2"/* "$2"/.[!.]* "$2"/..?*; do [ -e "$n" ] || [ -L "$n" ] && names+=("${n##*/}"); done
    printf -v "$1" '%s ' "${names[@]}"
}
mkdir -p "$T/bad"
for case_file in "$bad_dir"/*.case; do
    [ -e "$case_file" ] || continue
    name=${case_file##*/}; name=${name%.case}
    bad_count=$((bad_count + 1))
    W=$T/bad/$name
    mkdir "$W"
    # The header's KEY: VALUE lines (the first of each key counts), read without a process
    # per key: 250 cases, and under load every fork counts.
    args='' want_code='' want_msg='' stdin_from='' setup='' fmt='' body=''
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
            ---) body=1; break ;;
            'args: '*) [ -n "$args" ] || args=${line#args: } ;;
            'exit: '*) [ -n "$want_code" ] || want_code=${line#exit: } ;;
            'message: '*) [ -n "$want_msg" ] || want_msg=${line#message: } ;;
            'stdin: '*) [ -n "$stdin_from" ] || stdin_from=${line#stdin: } ;;
            'setup: '*) [ -n "$setup" ] || setup=${line#setup: } ;;
            'input-printf: '*) [ -n "$fmt" ] || fmt=${line#input-printf: } ;;
        esac
    done <"$case_file"
    if [ -n "$body" ]; then sed '1,/^---$/d' "$case_file" > "$W/IN"; fi
    if [ -n "$fmt" ]; then (cd "$W" && printf "$fmt" > IN); fi  # shellcheck disable=SC2059
    if [ -n "$setup" ]; then (cd "$W" && eval "$setup"); fi
    names_in before "$W"
    (
        cd "$W" || exit 99
        eval "set -- $args"
        [ -z "${ATTN_SANITIZER:-}" ] && ulimit -v 4000000
        exec timeout 30 "$ATTN" "$@" < "${stdin_from:-/dev/null}"
    ) > "$T/bad.out" 2> "$T/bad.err"
    code=$?
    names_in after "$W"
    problems=""
    [ "$code" = "$want_code" ] || problems+=" exit $code, expected $want_code;"
    [ -s "$T/bad.out" ] && problems+=" stdout not empty;"
    file_has "$T/bad.err" "$want_msg" || problems+=" stderr lacks '$want_msg';"
    [ "$before" = "$after" ] || problems+=" files changed: '$before' -> '$after';"
    if [ -z "$problems" ]; then pass; else fail "tests/bad/$name:$problems stderr: $(head -c 300 "$T/bad.err")"; fi
done
if [ "$bad_count" -ge 60 ]; then pass; else fail "tests/bad holds $bad_count cases, fewer than 60"; fi
