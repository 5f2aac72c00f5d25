# Text from a file is printed so that it cannot drive a terminal or break json: labels that are
# not UTF-8 and tensor names holding escape sequences show '?', a byte-order mark is not part
# of a label. (From the second adversarial audit of attend: each finding written
# failing-first.)

printf '1 2\n0.5 -1\n' > "$T/q2"
printf '1 0\n0 1\n2 1\n' > "$T/k2"

# "Labels are printed with control characters (ESC, CSI and the other C0/C1 codes) replaced by
# '?', in every output." A label file that is not valid UTF-8 passed its bytes through: a lone
# 0x9B is CSI on an 8-bit terminal, and the json (which must be UTF-8) no longer parsed.
printf 'a\377\nb\233c\n' > "$T/labels_bad_utf8"
printf 'x\303\251\n\342\202\254\n' > "$T/labels_utf8"
run attend -q "$T/q2" -k "$T/q2" -v "$T/q2" --labels "$T/labels_bad_utf8" --show weights --format json
expect_code 0 "labels that are not UTF-8"
expect_out_has '"labels": ["a?", "b?c"]' "labels: bytes that are not UTF-8 become '?'"
run attend -q "$T/q2" -k "$T/q2" -v "$T/q2" --labels "$T/labels_utf8" --show weights --format json
expect_out_has "$(printf '"labels": ["x\303\251", "\342\202\254"]')" "labels: valid UTF-8 is kept"

# "Labels are printed with control characters ... replaced by '?', in every output": the names
# of a model file's tensors too. attn ls (and the message naming what an .npz holds) printed
# them raw, so a file could drive the terminal (here ESC [31m, and an OSC title in the npz).
st_header='{"\u001b[31mred":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]}}'
{ printf "\\$(printf '%03o' ${#st_header})\\000\\000\\000\\000\\000\\000\\000"; printf '%s' "$st_header"; printf '\000\000\200\077'; } > "$T/esc.safetensors"
run ls "$T/esc.safetensors"
expect_code 0 "ls of a tensor named with an escape sequence"
if grep -q "$(printf '\033')" "$T/out"; then fail "ls printed a raw ESC"; else pass; fi
expect_out_has "?[31mred" "ls shows the name with ESC as '?'"
# ... and its dtype, a header's string too (a newline broke the table; found by a fuzzing audit)
st_header='{"a":{"dtype":"F\n\u001b[31m","shape":[1],"data_offsets":[0,4]}}'
{ printf "\\$(printf '%03o' ${#st_header})\\000\\000\\000\\000\\000\\000\\000"; printf '%s' "$st_header"; printf '\000\000\200\077'; } > "$T/esc_dtype.safetensors"
run ls "$T/esc_dtype.safetensors"
expect_code 0 "ls of a tensor whose dtype holds a newline and an escape sequence"
if grep -q "$(printf '\033')" "$T/out"; then fail "ls printed a dtype's raw ESC"; else pass; fi
if [ "$(wc -l <"$T/out")" -eq 2 ]; then pass; else fail "ls: a dtype's newline broke the table: $OUT"; fi

# A labels file saved with a UTF-8 byte-order mark (Windows editors) kept the invisible U+FEFF
# in its first label; number files skip it already.
printf '\357\273\277a\r\nb\r\n' > "$T/labels_bom"
run attend -q "$T/q2" -k "$T/q2" -v "$T/q2" --labels "$T/labels_bom" --show weights --format json
expect_out_has '"labels": ["a", "b"]' "labels: a byte-order mark is not part of the first label"

# A bidirectional override (U+202E) in a label would reorder what a terminal shows after it:
# it becomes '?', as control characters do.
printf 'a\342\200\256b\nc\n' >"$T/bidi_labels"
printf '1 2\n3 4\n' >"$T/bidi_m"
run attend -q "$T/bidi_m" -k "$T/bidi_m" -v "$T/bidi_m" --labels "$T/bidi_labels" --show weights --format csv
if [ "$CODE" -eq 0 ] && grep -q '^a?b,' "$T/out" && ! grep -q $'\342\200\256' "$T/out"; then pass; else fail "a U+202E label reached the output: $OUT"; fi
