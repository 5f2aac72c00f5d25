# The library names no command-line flag: a message about a setting is a SettingError
# (include/attn/error.hpp) and src/cli/ puts the flag in (cli/main.cpp). Scans every string
# literal outside src/cli/ for "--word" or a lone "-x"; comments are skipped.

# string_literals FILE...: "FILE:LINE:"literal"" for every string literal on a line, comments
# (// to the end of the line) and character literals ('"') skipped.
string_literals() {
    perl -ne 'while (/\G(?:("(?:[^"\\]|\\.)*")|\x27(?:[^\x27\\]|\\.)*\x27|\/\/.*|.)/gc) {
                  print "$ARGV:$.:$1\n" if defined $1 }
              close ARGV if eof' "$@"
}
flag_pattern='"[^"]*--[a-z]|"([^"]*[ (]|)-[a-zA-Z]($|[ ,)"])'

# The scan finds a flag where there is one (a line as the library had it before).
printf '%s\n' '        throw UsageError("-o " + path + ": not a directory");' \
    '    throw UsageError("invalid --format '"'"'" + name + "'"'"'");' \
    '    x = f(s, "a"); // a comment may say "-o -" or --format' "    if (c == '\"') return \"-x\";" >"$T/flagged.cpp"
if [ "$(string_literals "$T/flagged.cpp" | grep -cE "$flag_pattern")" = 3 ]; then pass; else fail "the flag scan misses a flag in a message, or finds one in a comment"; fi

library=$(cd "$ROOT" && find src include -name '*.cpp' -o -name '*.hpp' | grep -v '^src/cli/' | sort)
found=$(cd "$ROOT" && string_literals $library | grep -E "$flag_pattern")
if [ -z "$found" ]; then pass; else fail "library messages name a flag (throw SettingError instead): $(head -5 <<<"$found")"; fi

# The CLI still names the flag as the user typed it.
run softmax --format xml "$ROOT/data/examples/simple/x.txt"
expect_code 2 "softmax --format xml"
expect_err_has "attn: invalid --format 'xml': expected pretty, csv, tsv, json, npy or npz" "the CLI names --format"
run random --shape 2 --torch-kernel sse
expect_code 2 "random --torch-kernel sse"
expect_err_has "attn: invalid --torch-kernel 'sse': expected avx2 or scalar" "the CLI names --torch-kernel"
