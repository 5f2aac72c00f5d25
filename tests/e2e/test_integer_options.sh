# Every integer option of every command follows the one rule of src/cli/option_values.hpp:
# decimal digits (a '-' only where negatives are meant), no '+', spaces, hexadecimal, exponent
# or point, within the option's stated range. Each option below is given a value it takes
# (exit 0) and then every malformed or out-of-range spelling, which must be refused with exit 2,
# nothing on stdout and a message quoting the option and the value as given.
# e2e: not under a sanitizer: 570 spellings refused while the options are parsed, before any input is read; the cli fuzzer parses such values under ASan and UBSan
X=$ROOT/data/examples/simple/x.txt
# command words (OPT marks the option under test) | a good value | the option's range
cases=(
    "softmax $X --digits OPT|3|0 17"
    "softmax $X --threads OPT|2|1 1024"
    "example simple --digits OPT|3|0 17"
    "attend -x $X --heads OPT|3|1 65536"
    "attend -x $X --heads 3 --kv-heads OPT|3|1 65536"
    "attend -x $X --heads 3 --heatmap --head OPT|2|0 65535"
    "bench --op softmax --sizes 8 --repeat OPT|1|1 100000"
    "bench --op softmax --sizes 8 --repeat 1 --warmup OPT|0|0 100000"
    "bench --op attention --sizes 1x2x8x8 -d 8 --repeat 1 --warmup 0 --kv-heads OPT|1|1 65536"
    "bench --op attention --sizes 8 --repeat 1 --warmup 0 --d OPT|8|1 1048576"
    "variance --dk 4 --batch 1 --rows OPT|2|1 65536"
    "variance --dk 4 --rows 2 --batch OPT|1|1 1048576"
    "variance --rows 2 --batch 1 --dk OPT|4|1 1048576"
    "random --shape 2 --seed 1 --count OPT|2|1 1000000"
    "concat $X $X --axis OPT|-1|-32 31"
)
for c in "${cases[@]}"; do
    IFS='|' read -r words good range <<<"$c"
    read -r lo hi <<<"$range"
    opt=$(grep -o -- '-*[a-z-]* OPT' <<<"$words" | sed 's/ OPT//')
    # run_with VALUE: the case's words with OPT replaced by VALUE (one argument, spaces kept).
    run_with() {
        local args=() w
        for w in $words; do if [ "$w" = OPT ]; then args+=("$1"); else args+=("$w"); fi; done
        run "${args[@]}"
    }
    run_with "$good"
    expect_code 0 "$opt $good is taken ($words)"
    above=$((hi + 1)) below=$((lo - 1))
    bads=("+$good" " $good" "$good " "0x10" "1e3" "$good.0" "abc" "$above" "$below" "99999999999999999999")
    # An empty --d is an empty list, refused as such (not as an integer).
    [ "$opt" = --d ] || bads+=("")
    for bad in "${bads[@]}"; do
        run_with "$bad"
        expect_code 2 "$opt '$bad' is refused ($words)"
        expect_out_empty "$opt '$bad': nothing on stdout"
        expect_err_has "invalid $opt '$bad': expected " "$opt '$bad': the message quotes the option and the value"
    done
    # The message says which rule the value broke.
    run_with "+1"; expect_err_has "expected an integer without '+'" "$opt '+1': the sign"
    run_with "0x10"; expect_err_has "expected a decimal integer" "$opt 0x10: hexadecimal"
    run_with "$above"; expect_err_has "expected an integer from $lo to $hi" "$opt $above: the range"
    # '-' only where the range has negatives: '-0' is not a non-negative integer.
    run_with "-0"
    if [ "$lo" -lt 0 ]; then expect_code 0 "$opt -0 is axis 0"; else expect_code 2 "$opt -0 is refused"; fi
done
