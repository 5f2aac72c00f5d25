# attn tokenize: ids of every tokenizer of data/tokenize/ on its 2,000-sentence corpus (and
# 200 text pairs, with token type ids) equal to those @huggingface/tokenizers gives
# (data/tokenize/make_data.mjs, PROVENANCE.md); the legacy files (vocab.txt, vocab.json +
# merges.txt, written here from the same vocabularies) give the same ids; known GPT-2 ids;
# refusals.
TD=$ROOT/data/tokenize
for name in bert-base-uncased gpt2 llama llama-metaspace wordpiece-misc bytelevel-misc; do
    mkdir -p "$T/$name"
    if [ -e "$TD/$name/tokenizer.json.gz" ]; then gunzip -c "$TD/$name/tokenizer.json.gz" >"$T/$name/tokenizer.json"
    else cp "$TD/$name/tokenizer.json" "$T/$name/"; fi
done

# compare_ids NAME WANT.gz GOT DESCRIPTION: every line identical; reports how many match.
compare_ids() {
    gunzip -c "$2" >"$T/want"
    local total same
    total=$(wc -l <"$T/want")
    same=$(paste -d '\n' "$3" "$T/want" | paste - - | awk -F '\t' '$1 == $2 { n++ } END { print n + 0 }')
    echo "  tokenize $1 $4: $same of $total identical to @huggingface/tokenizers"
    if [ "$total" -gt 0 ] && [ "$same" -eq "$total" ] && [ "$(wc -l <"$3")" -eq "$total" ]; then pass
    else fail "tokenize $1 $4: $same of $total lines identical; first difference: $(diff "$T/want" "$3" | head -3)"; fi
}

for name in bert-base-uncased gpt2 llama llama-metaspace wordpiece-misc bytelevel-misc; do
    run tokenize "$T/$name" --texts "$TD/corpus.json" --format ids; expect_code 0 "tokenize $name --texts corpus"
    cp "$T/out" "$T/got"
    compare_ids "$name" "$TD/expected/$name.ids.gz" "$T/got" "corpus"
    if [ -e "$TD/expected/$name.pairs.gz" ]; then
        run tokenize "$T/$name" --texts "$TD/pairs.json" --format ids; expect_code 0 "tokenize $name pairs"
        cp "$T/out" "$T/got"
        compare_ids "$name" "$TD/expected/$name.pairs.gz" "$T/got" "pairs (ids|type ids)"
    fi
done

# The legacy files, written from the same vocabularies, tokenize alike.
mkdir -p "$T/bert-legacy" "$T/gpt2-legacy"
jq -r '.model.vocab | to_entries | sort_by(.value) | .[].key' "$T/bert-base-uncased/tokenizer.json" >"$T/bert-legacy/vocab.txt"
jq '.model.vocab' "$T/gpt2/tokenizer.json" >"$T/gpt2-legacy/vocab.json"
{ echo '#version: 0.2'; jq -r '.model.merges[]' "$T/gpt2/tokenizer.json"; } >"$T/gpt2-legacy/merges.txt"
run tokenize "$T/bert-legacy" --texts "$TD/corpus.json" --format ids; expect_code 0 "tokenize vocab.txt"
cp "$T/out" "$T/got"; compare_ids bert-legacy "$TD/expected/bert-base-uncased.ids.gz" "$T/got" "(vocab.txt) corpus"
run tokenize "$T/bert-legacy" --texts "$TD/pairs.json" --format ids
cp "$T/out" "$T/got"; compare_ids bert-legacy "$TD/expected/bert-base-uncased.pairs.gz" "$T/got" "(vocab.txt) pairs"
run tokenize "$T/gpt2-legacy" --texts "$TD/corpus.json" --format ids; expect_code 0 "tokenize vocab.json + merges.txt"
cp "$T/out" "$T/got"; compare_ids gpt2-legacy "$TD/expected/gpt2.ids.gz" "$T/got" "(vocab.json + merges.txt) corpus"

# Known ids of GPT-2 and BERT (their published vocabularies: GPT-2's "Hello" 15496, " world" 995), and the
# formats: one text, a pair, special tokens off.
run tokenize "$T/gpt2" --text "Hello world" --format ids; expect_code 0 "gpt2 Hello world"
if [ "$OUT" = "15496,995" ]; then pass; else fail "gpt2 'Hello world': $OUT, expected 15496,995"; fi
# The tutorial's sentence pair: bert-base-uncased's ids as transformers prints them.
run tokenize "$T/bert-base-uncased" --text "time flies like an arrow" --text-pair "fruit flies like a banana" --format ids
if [ "$OUT" = "101,2051,10029,2066,2019,8612,102,5909,10029,2066,1037,15212,102|0,0,0,0,0,0,0,1,1,1,1,1,1" ]; then pass
else fail "bert 'time flies like an arrow' pair: $OUT"; fi
run tokenize "$T/bert-base-uncased/tokenizer.json" --text "Hello" --text-pair "world" --format json
expect_code 0 "tokenize a tokenizer.json with a pair, json"
if jq -e '.tokens[0] == "[CLS]" and .type_ids[-1] == 1 and .sequence_ids[0] == null and .sequence_ids[1] == 0' "$T/out" >/dev/null; then pass
else fail "tokenize json: $OUT"; fi
run tokenize "$T/bert-base-uncased" --text "Hello" --no-special-tokens --format csv
if [ "$OUT" = "$(printf 'index,id,token,type_id,sequence,special\n0,7592,hello,0,0,0')" ]; then pass; else fail "tokenize csv: $OUT"; fi
run tokenize "$T/bert-base-uncased" --text "a [MASK] b"; expect_code 0 "tokenize pretty"
expect_out_has "[MASK]" "an added token in the text"

# Refusals: usage (2), bad files (3).
run tokenize "$T/gpt2"; expect_code 2 "tokenize without --text"; expect_err_has "missing --text" "tokenize without --text"
run tokenize --text x; expect_code 2 "tokenize without PATH"
run tokenize "$T/gpt2" --text x --texts "$TD/corpus.json"; expect_code 2 "--text and --texts"
expect_err_has "--text and --texts cannot be used together" "--text and --texts"
run tokenize "$T/gpt2" --text x --format yaml; expect_code 2 "--format yaml"; expect_err_has "invalid --format 'yaml'" "--format yaml"
run tokenize "$T/gpt2" --text "$(printf 'a\377b')"; expect_code 2 "invalid UTF-8 text"; expect_err_has "invalid UTF-8 at byte 1" "invalid UTF-8 text"
mkdir -p "$T/empty"; run tokenize "$T/empty" --text x; expect_code 3 "a folder without tokenizer files"
expect_err_has "no tokenizer.json, vocab.txt, or vocab.json and merges.txt" "a folder without tokenizer files"
run tokenize "$T/nowhere" --text x; expect_code 3 "no such folder"
mkdir -p "$T/bad1"; printf '{"model": {"type": "BPE", "vocab": {}, "merges": []}, ' >"$T/bad1/tokenizer.json"
run tokenize "$T/bad1" --text x; expect_code 3 "truncated tokenizer.json"; expect_err_has "json: unterminated object at byte" "truncated tokenizer.json"
mkdir -p "$T/bad2"; echo '{"normalizer": {"type": "Precompiled"}, "model": {"type": "BPE", "vocab": {}, "merges": []}}' >"$T/bad2/tokenizer.json"
run tokenize "$T/bad2" --text x; expect_code 3 "an unsupported normalizer"; expect_err_has 'unsupported normalizer "Precompiled"' "an unsupported normalizer"
mkdir -p "$T/bad3"; echo '{"model": {"type": "Unigram", "vocab": []}}' >"$T/bad3/tokenizer.json"
run tokenize "$T/bad3" --text x; expect_code 3 "an unsupported model"; expect_err_has 'unsupported model "Unigram" (known: WordPiece, BPE)' "an unsupported model"
mkdir -p "$T/bad4"; echo '{"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(?<=a)b"}}, "model": {"type": "BPE", "vocab": {}, "merges": []}}' >"$T/bad4/tokenizer.json"
run tokenize "$T/bad4" --text x; expect_code 3 "an unsupported regex"; expect_err_has 'unsupported regex "(?<=a)b": unsupported group' "an unsupported regex"
echo '[1]' >"$T/texts.json"; run tokenize "$T/gpt2" --texts "$T/texts.json"; expect_code 3 "--texts item not a text"
expect_err_has "item 0: expected a text or a [text, text_pair] pair" "--texts item not a text"

# As transformers' tokenizer(text, text_pair): an empty text_pair is none (@huggingface/tokenizers'
# encode(text, "") gives the same: [101, 1037, 102]); special_tokens_mask marks only the tokens
# the post-processor adds, not a special token typed in the text (tokenizers#722); json keeps a
# token's control characters as escapes (the llama tokenizer's tab token printed as '?').
run tokenize "$T/bert-base-uncased" --text a --text-pair '' --format ids
expect_code 0 "an empty --text-pair"
if [ "$OUT" = "101,1037,102|0,0,0" ]; then pass; else fail "an empty --text-pair is none: got $OUT"; fi
run tokenize "$T/bert-base-uncased" --text 'a [SEP] b' --format json
if grep -q '"special_tokens_mask": \[1, 0, 0, 0, 1\]' "$T/out"; then pass; else fail "[SEP] in the text: mask $(grep mask "$T/out")"; fi
run tokenize "$T/llama" --text "$(printf 'a\tb')" --format json
if grep -qF '"tokens": ["<s>", "▁a", "\u0009", "b"]' "$T/out"; then pass; else fail "a tab token in json: $(grep tokens "$T/out")"; fi
# csv quotes nothing for a tab (its separator is a comma), tsv writes it \t (both printed it '?')
run tokenize "$T/llama" --text "$(printf 'a\tb')" --format csv
[ "$(sed -n 4p "$T/out" | cut -d, -f3)" = "$(printf '\t')" ] && pass || fail "a tab token in csv: $(sed -n 4p "$T/out")"
run tokenize "$T/llama" --text "$(printf 'a\tb')" --format tsv
[ "$(sed -n 4p "$T/out" | cut -f3)" = '\t' ] && pass || fail "a tab token in tsv: $(sed -n 4p "$T/out")"

# A "#version" merge (merges.txt's header line, kept in some tokenizer.json files) is skipped, as
# Hugging Face's tokenizers skips it (with the merges checked against the vocabulary it refused
# the file).
mkdir -p "$T/version"
printf '%s' '{"model": {"type": "BPE", "vocab": {"h": 0, "e": 1, "he": 2}, "merges": ["#version: 0.2", "h e"]}}' \
    >"$T/version/tokenizer.json"
run tokenize "$T/version" --text he --format ids
expect_code 0 "a #version merge is skipped"
[ "$OUT" = "2" ] && pass || fail "#version merge: ids '$OUT', expected 2"

# The README names the Unicode version of the tables the help reads from them (15.0.0: "15.0").
version=$("$ATTN" tokenize --help | tr '\n' ' ' | grep -o 'tables of Unicode [0-9.]*' | grep -o '[0-9][0-9.]*[0-9]')
grep -qF "Unicode ${version%.0}'s tables" "$ROOT/README.md" && pass \
    || fail "README does not name Unicode ${version%.0}'s tables (tokenize --help: $version)"

# WordPiece looks up no piece longer than the vocabulary's longest token: a word of 20,000 letters
# under max_input_chars_per_word 10^9 took minutes (every prefix of the rest, cubic in its length;
# found by fuzzing). A negative max_input_chars_per_word does not load (Hugging Face's is a usize).
wp=$T/wordpiece_long && mkdir -p "$wp"
printf '%s' '{"pre_tokenizer":{"type":"WhitespaceSplit"},"model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":1000000000,"vocab":{"[UNK]":0,"a":1,"##a":2}}}' >"$wp/tokenizer.json"
word=$(printf 'a%.0s' $(seq 20000))
timeout 10 "$ATTN" tokenize "$wp" --text "$word" --format ids >"$T/out" 2>"$T/err"; CODE=$?
expect_code 0 "WordPiece of a 20,000-letter word, within 10 s"
if [ "$(tr ',' '\n' <"$T/out" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" = " 1 1; 19999 2;" ]; then pass
else fail "WordPiece of a 20,000-letter word: $(head -c 100 "$T/out")"; fi
sed 's/1000000000/-1/' "$wp/tokenizer.json" >"$wp/t" && mv "$wp/t" "$wp/tokenizer.json"
run tokenize "$wp" --text aaa
expect_code 3 "a negative max_input_chars_per_word"
expect_err_has "WordPiece's max_input_chars_per_word is -1: expected a whole number >= 0" "a negative max_input_chars_per_word named"
