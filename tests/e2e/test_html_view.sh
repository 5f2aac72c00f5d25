# attend --html through the real binary.
# one self-contained page (what it draws is checked by make test-browser)
run attend -x "$ROOT/data/examples/masking/x.txt" --causal --html "$T/v.html" --show weights
expect_code 0 "attend --html"
if grep -q 'id="attn-data"' "$T/v.html" && ! grep -qE '(src|href)=' "$T/v.html"; then pass; else fail "--html page"; fi
run attend -x "$ROOT/data/examples/masking/x.txt" --html -; expect_code 2 "--html - refused"
run attend -x "$ROOT/data/examples/masking/x.txt" --html "$T/no/such/dir/v.html"; expect_code 1 "--html to an unwritable place"
