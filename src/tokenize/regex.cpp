// The regex engine: a recursive-descent parser to a tree, and a backtracking matcher in
// continuation-passing style (each node calls "the rest of the pattern" on every way it
// can match). Both recurse, so both are bounded: the parser by the groups' nesting, the
// matcher by the stack it has used (a long flat pattern nests as deeply as a nested one).
#include "tokenize/regex.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>

#include "attn/error.hpp"
#include "tokenize/unicode.hpp"

namespace attn::tokenize {

namespace u = attn::unicode;

// One item of a character class: a range, or a predicate such as \p{L} (negated or not). Not
// in the anonymous namespace: Regex::Node holds them, and a class with linkage must not hold a
// type without it (GCC's -Wsubobject-linkage, where this file is compiled in a bundle).
namespace regex_detail {
struct ClassItem {
    char32_t lo = 0, hi = 0;
    bool (*test)(char32_t) = nullptr;
    bool negate = false;
};
}  // namespace regex_detail
using regex_detail::ClassItem;

namespace {

bool cat_l(char32_t c) { return u::is_letter(c); }
bool cat_n(char32_t c) { return u::is_number(c); }
bool cat_p(char32_t c) { return u::is_punctuation(c); }
bool cat_m(char32_t c) { return u::is_mark(c); }
bool cat_s(char32_t c) { auto k = u::category(c); return k >= u::Category::Sm && k <= u::Category::So; }
bool cat_z(char32_t c) { auto k = u::category(c); return k >= u::Category::Zs && k <= u::Category::Zp; }
bool cat_nd(char32_t c) { return u::category(c) == u::Category::Nd; }
bool cat_lu(char32_t c) { return u::category(c) == u::Category::Lu; }
bool cat_ll(char32_t c) { return u::category(c) == u::Category::Ll; }
bool cat_lt(char32_t c) { return u::category(c) == u::Category::Lt; }
bool cat_lm(char32_t c) { return u::category(c) == u::Category::Lm; }
bool cat_lo(char32_t c) { return u::category(c) == u::Category::Lo; }
bool cat_mn(char32_t c) { return u::category(c) == u::Category::Mn; }
bool cat_c(char32_t c) { auto k = u::category(c); return k == u::Category::Cn || k >= u::Category::Cc; }
bool cat_cc(char32_t c) { return u::category(c) == u::Category::Cc; }
bool white_space(char32_t c) { return u::is_white_space(c); }
bool js_space(char32_t c) { return u::is_js_space(c); }
bool digit_ascii(char32_t c) { return c >= '0' && c <= '9'; }
bool hex_digit(char32_t c) { return digit_ascii(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }  // Oniguruma's \h
// Oniguruma's \w (its Word: Alphabetic, marks, Nd, Pc), as in a class: [\w].
bool word_unicode(char32_t c) {
    auto k = u::category(c);
    return u::is_alphabetic(c) || u::is_mark(c) || k == u::Category::Nd || k == u::Category::Pc;
}
// Oniguruma's \w outside a class: below U+0100 it reads its ISO-8859-1 ctype table, which also
// takes the superscripts and fractions ² ³ ¹ ¼ ½ ¾ for word characters.
bool word_unicode_single(char32_t c) {
    return word_unicode(c) || c == 0xB2 || c == 0xB3 || c == 0xB9 || (c >= 0xBC && c <= 0xBE);
}
// The Rust regex crate's \w (UTS #18's word: Oniguruma's and Join_Control, ZWNJ and ZWJ).
bool word_rust(char32_t c) { return word_unicode(c) || u::is_join_control(c); }
bool word_ascii(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || digit_ascii(c) || c == '_'; }

// The pattern in quotes for a message; a hostile one can be megabytes long.
std::string quoted(std::u32string_view p) {
    constexpr std::size_t most = 80;
    if (p.size() <= most) return "\"" + u::encode_utf8(p) + "\"";
    return "\"" + u::encode_utf8(p.substr(0, most)) + "\"... (" + std::to_string(p.size()) + " characters)";
}

}  // namespace

bool rust_word_character(char32_t c) { return word_rust(c); }

struct Regex::Node {
    enum Kind { seq, alt, chars, any, repeat, look, line_start, line_end } kind = seq;
    std::vector<std::unique_ptr<Node>> items;  // seq: the parts; alt: the branches; repeat/look: one
    std::vector<ClassItem> cls;                // chars: matches when any item does (xor negate)
    bool negate = false;                       // chars: [^..]; look: (?!..)
    bool icase = false;                        // chars: ASCII case-insensitive
    int min = 0, max = -1;                     // repeat: -1 is no upper bound
    bool greedy = true, possessive = false;
};

namespace {

using Node = Regex::Node;
using Cont = std::function<bool(std::size_t)>;

class Parser {
public:
    Parser(std::u32string_view p, Regex::Spaces spaces) : p_(p), spaces_(spaces) {}

    std::unique_ptr<Node> parse() {
        auto n = alternation(false);
        if (i_ != p_.size()) fail("unbalanced ')'");
        return n;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw InputError("tokenizer.json: unsupported regex " + quoted(p_) + ": " + what + " at character " +
                         std::to_string(i_));
    }
    bool more() const { return i_ < p_.size(); }

    std::unique_ptr<Node> alternation(bool icase) {
        auto alt = std::make_unique<Node>();
        alt->kind = Node::alt;
        alt->items.push_back(sequence(icase));
        while (more() && p_[i_] == '|') {
            ++i_;
            alt->items.push_back(sequence(icase));
        }
        if (alt->items.size() == 1) return std::move(alt->items[0]);
        return alt;
    }

    std::unique_ptr<Node> sequence(bool icase) {
        auto s = std::make_unique<Node>();
        s->kind = Node::seq;
        while (more() && p_[i_] != '|' && p_[i_] != ')') {
            auto atom_node = atom(icase);
            s->items.push_back(quantified(std::move(atom_node)));
        }
        return s;
    }

    std::unique_ptr<Node> quantified(std::unique_ptr<Node> a) {
        if (!more()) return a;
        int min, max;
        bool possessive = false;
        const char32_t c = p_[i_];
        if (c == '*') min = 0, max = -1, ++i_;
        else if (c == '+') min = 1, max = -1, ++i_;
        else if (c == '?') min = 0, max = 1, ++i_;
        else if (c == '{' && braces(&min, &max, &possessive)) {}
        else return a;
        auto r = std::make_unique<Node>();
        r->kind = Node::repeat;
        r->min = min;
        r->max = max;
        r->possessive = possessive;
        if (possessive) {}  // {n,m} with n > m: a '?' or '+' after it is not a modifier
        else if (more() && p_[i_] == '?') r->greedy = false, ++i_;
        else if (more() && p_[i_] == '+') r->possessive = true, ++i_;
        r->items.push_back(std::move(a));
        return r;
    }

    // {m}, {m,}, {m,n} at i_. Counts above Oniguruma's ONIG_MAX_REPEAT_NUM (100000) are
    // refused, as Oniguruma refuses them; {n,m} with n > m is Oniguruma's possessive interval
    // (since 6.9.2, its doc/RE): m to n times, possessive.
    bool braces(int* min, int* max, bool* possessive) {
        constexpr int most = 100000;
        std::size_t j = i_ + 1;
        bool too_big = false;
        auto number = [&](int* out) {
            std::size_t start = j;
            int v = 0;
            for (; j < p_.size() && p_[j] >= '0' && p_[j] <= '9'; ++j) {
                v = std::min(v * 10 + int(p_[j] - '0'), most + 1);
                too_big |= v > most;
            }
            *out = v;
            return j > start;
        };
        if (!number(min)) return false;
        *max = *min;
        if (j < p_.size() && p_[j] == ',') {
            ++j;
            if (!number(max)) *max = -1;
        }
        if (j >= p_.size() || p_[j] != '}') return false;
        if (too_big) fail("a repeat count above 100000 (Oniguruma's limit)");
        if (*max >= 0 && *max < *min) std::swap(*min, *max), *possessive = true;
        i_ = j + 1;
        return true;
    }

    std::unique_ptr<Node> chars(std::vector<ClassItem> items, bool negate, bool icase) {
        auto n = std::make_unique<Node>();
        n->kind = Node::chars;
        n->cls = std::move(items);
        n->negate = negate;
        n->icase = icase;
        return n;
    }

    std::unique_ptr<Node> atom(bool icase) {
        const char32_t c = p_[i_];
        if (c == '(') return group(icase);
        if (c == '[') return char_class(icase);
        if (c == '.') {
            ++i_;
            return chars({ClassItem{'\n', '\n'}}, true, false);
        }
        if (c == '^' || c == '$') {
            ++i_;
            auto n = std::make_unique<Node>();
            n->kind = c == '^' ? Node::line_start : Node::line_end;
            return n;
        }
        if (c == '*' || c == '+' || c == '?') fail("nothing to repeat");
        if (c == '\\') {
            std::vector<ClassItem> items;
            escape(items, false);
            bool neg = items.size() == 1 && items[0].test && items[0].negate;
            if (neg) items[0].negate = false;
            return chars(std::move(items), neg, icase);
        }
        ++i_;
        return chars({ClassItem{c, c}}, false, icase);
    }

    std::unique_ptr<Node> group(bool icase) {
        if (++depth_ > Regex::max_nesting)  // the parser, the matcher and ~Node recurse per level
            fail("groups nested more than " + std::to_string(Regex::max_nesting) + " deep");
        ++i_;  // (
        bool look = false, negate = false;
        if (more() && p_[i_] == '?') {
            ++i_;
            if (!more()) fail("unterminated group");
            if (p_[i_] == ':') ++i_;
            else if (p_[i_] == '=') look = true, ++i_;
            else if (p_[i_] == '!') look = true, negate = true, ++i_;
            else if (p_[i_] == 'i' && i_ + 1 < p_.size() && p_[i_ + 1] == ':') icase = true, i_ += 2;
            else fail("unsupported group");
        }
        auto inner = alternation(icase);
        if (!more() || p_[i_] != ')') fail("unterminated group");
        ++i_;
        --depth_;
        if (!look) return inner;
        auto n = std::make_unique<Node>();
        n->kind = Node::look;
        n->negate = negate;
        n->items.push_back(std::move(inner));
        return n;
    }

    // One escape at i_ ('\\'), added to a class's items; `in_class`: inside [...].
    void escape(std::vector<ClassItem>& items, bool in_class = true) {
        ++i_;
        if (!more()) fail("trailing backslash");
        const char32_t c = p_[i_++];
        auto pred = [&](bool (*t)(char32_t), bool neg) { items.push_back(ClassItem{0, 0, t, neg}); };
        const bool js = spaces_ == Regex::Spaces::javascript;
        bool (*const word)(char32_t) = js                                   ? word_ascii
                                       : spaces_ == Regex::Spaces::rust ? word_rust
                                       : in_class                       ? word_unicode
                                                                        : word_unicode_single;
        switch (c) {
            case 's': pred(js ? js_space : white_space, false); return;
            case 'S': pred(js ? js_space : white_space, true); return;
            case 'd': pred(js ? digit_ascii : cat_nd, false); return;
            case 'D': pred(js ? digit_ascii : cat_nd, true); return;
            case 'w': pred(word, false); return;
            case 'W': pred(word, true); return;
            case 'h': case 'H':  // Oniguruma's; not ECMAScript's
                if (js) fail("unsupported escape \\h");
                pred(hex_digit, c == 'H');
                return;
            case 'n': items.push_back({'\n', '\n'}); return;
            case 'r': items.push_back({'\r', '\r'}); return;
            case 't': items.push_back({'\t', '\t'}); return;
            case 'f': items.push_back({'\f', '\f'}); return;
            case 'v': items.push_back({'\v', '\v'}); return;
            case 'p': case 'P': {
                if (!more() || p_[i_] != '{') fail("\\p without {name}");
                const std::size_t close = p_.find('}', i_);
                if (close == std::u32string_view::npos) fail("unterminated \\p{");
                const std::string name = u::encode_utf8(p_.substr(i_ + 1, close - i_ - 1));
                i_ = close + 1;
                static const std::pair<const char*, bool (*)(char32_t)> known[] = {
                    {"L", cat_l}, {"Letter", cat_l}, {"N", cat_n}, {"Number", cat_n}, {"P", cat_p},
                    {"Punctuation", cat_p}, {"M", cat_m}, {"Mark", cat_m}, {"S", cat_s}, {"Symbol", cat_s},
                    {"Z", cat_z}, {"Nd", cat_nd}, {"Lu", cat_lu}, {"Ll", cat_ll}, {"Lt", cat_lt},
                    {"Lm", cat_lm}, {"Lo", cat_lo}, {"Mn", cat_mn}, {"C", cat_c}, {"Cc", cat_cc},
                    {"White_Space", white_space}};
                for (const auto& [n, t] : known)
                    if (name == n) { pred(t, c == 'P'); return; }
                fail("unsupported property \\p{" + name + "}");
            }
            case 'x': case 'u': {
                std::size_t digits = c == 'x' ? 2 : 4;
                if (more() && p_[i_] == '{') {
                    const std::size_t close = p_.find('}', i_);
                    if (close == std::u32string_view::npos) fail("unterminated \\x{");
                    ++i_;
                    digits = close - i_;
                }
                char32_t v = 0;
                for (std::size_t k = 0; k < digits; ++k, ++i_) {
                    if (!more()) fail("truncated hex escape");
                    const char32_t h = p_[i_];
                    v <<= 4;
                    if (h >= '0' && h <= '9') v |= h - '0';
                    else if (h >= 'a' && h <= 'f') v |= h - 'a' + 10;
                    else if (h >= 'A' && h <= 'F') v |= h - 'A' + 10;
                    else fail("invalid hex escape");
                }
                if (more() && p_[i_] == '}') ++i_;
                items.push_back({v, v});
                return;
            }
            default:
                if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
                    fail(std::string("unsupported escape \\") + char(c));
                items.push_back({c, c});
        }
    }

    std::unique_ptr<Node> char_class(bool icase) {
        ++i_;  // [
        bool negate = false;
        if (more() && p_[i_] == '^') negate = true, ++i_;
        std::vector<ClassItem> items;
        bool first = true;
        while (more() && (p_[i_] != ']' || first)) {
            first = false;
            if (p_[i_] == '[') fail("nested classes");
            if (p_[i_] == '\\') {
                escape(items);
            } else {
                items.push_back({p_[i_], p_[i_]});
                ++i_;
            }
            // a range a-b (the last item a single character, '-' not last)
            if (i_ + 1 < p_.size() && p_[i_] == '-' && p_[i_ + 1] != ']' && !items.back().test &&
                items.back().lo == items.back().hi) {
                ++i_;
                std::vector<ClassItem> end;
                if (p_[i_] == '\\') escape(end);
                else end.push_back({p_[i_], p_[i_]}), ++i_;
                if (end.size() != 1 || end[0].test || end[0].lo < items.back().lo) fail("invalid range");
                items.back().hi = end[0].lo;
            }
        }
        if (!more()) fail("unterminated class");
        ++i_;  // ]
        return chars(std::move(items), negate, icase);
    }

    std::u32string_view p_;
    Regex::Spaces spaces_;
    std::size_t i_ = 0;
    int depth_ = 0;
};

bool item_matches(const ClassItem& it, char32_t c) {
    if (it.test) return it.test(c) != it.negate;
    return c >= it.lo && c <= it.hi;
}

bool chars_match(const Node& n, char32_t c) {
    bool hit = false;
    for (const ClassItem& it : n.cls)
        if (item_matches(it, c)) { hit = true; break; }
    if (!hit && n.icase && c < 0x80) {
        const char32_t other = (c >= 'a' && c <= 'z') ? c - 32 : (c >= 'A' && c <= 'Z') ? c + 32 : c;
        if (other != c)
            for (const ClassItem& it : n.cls)
                if (item_matches(it, other)) { hit = true; break; }
    }
    return hit != n.negate;
}

// The stack a call has below it, from the frame address (GCC and Clang).
std::uintptr_t stack_top() { return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)); }

// The budget of the outermost TextBudget on this thread (active: one lives).
struct SharedBudget {
    std::size_t chars = 0, used = 0, compared = 0;  // compared: Matcher::compared's characters
    bool active = false;
};
thread_local SharedBudget shared_budget;

}  // namespace

Regex::TextBudget::TextBudget(std::size_t chars) : outer_(!shared_budget.active) {
    if (outer_) shared_budget = {chars, 0, 0, true};
}
Regex::TextBudget::~TextBudget() {
    if (outer_) shared_budget = {};
}

class Regex::Matcher {
public:
    Matcher(std::u32string_view t, const std::string& shown) : t_(t), shown_(shown) {}

    std::size_t size() const { return t_.size(); }

    // Before each match attempt: a fresh step budget, and the stack measured from here.
    void start() {
        steps_ = 0;
        base_ = stack_top();
    }

    bool match(const Node& n, std::size_t i, const Cont& k) const {
        step();
        if (base_ - stack_top() > Regex::max_stack)
            throw InputError("tokenizer.json: regex " + shown_ + " nests too deeply to match (more than " +
                             std::to_string(Regex::max_stack >> 10) + " KiB of stack)");
        switch (n.kind) {
            case Node::chars:
                return i < t_.size() && chars_match(n, t_[i]) && k(i + 1);
            case Node::any:
                return i < t_.size() && k(i + 1);
            case Node::line_start:
                return (i == 0 || t_[i - 1] == '\n') && k(i);
            case Node::line_end:
                return (i == t_.size() || t_[i] == '\n') && k(i);
            case Node::seq:
                return seq(n, 0, i, k);
            case Node::alt:
                for (const auto& b : n.items)
                    if (match(*b, i, k)) return true;
                return false;
            case Node::look: {
                const bool found = match(*n.items[0], i, [](std::size_t) { return true; });
                return found != n.negate && k(i);
            }
            case Node::repeat:
                if (n.possessive) {
                    std::size_t at = i;
                    int count = 0;
                    while (n.max < 0 || count < n.max) {
                        std::size_t next = std::u32string_view::npos;
                        if (!match(*n.items[0], at, [&](std::size_t j) { next = j; return true; })) break;
                        if (next == at) break;
                        at = next;
                        ++count;
                    }
                    return count >= n.min && k(at);
                }
                if (n.items[0]->kind == Node::chars) return repeat_chars(n, i, k);
                return repeat(n, 0, i, k);
        }
        return false;
    }

private:
    void step() const {
        if (++steps_ > Regex::max_steps)
            throw InputError("tokenizer.json: regex " + shown_ + " gives up after " + std::to_string(Regex::max_steps) +
                             " backtracking steps in one match (catastrophic backtracking)");
        const bool shared = shared_budget.active;
        const std::size_t chars = shared ? shared_budget.chars : t_.size();
        if (++(shared ? shared_budget.used : text_steps_) > Regex::max_text_steps(chars))
            throw InputError("tokenizer.json: regex " + shown_ + " gives up after " +
                             std::to_string(Regex::max_text_steps(chars)) + " backtracking steps over a text of " +
                             std::to_string(chars) + " characters (catastrophic backtracking)");
    }

    // The characters a repeated class compares to measure its run, over the whole text: as
    // many as its steps may be (a word of millions of letters is one legitimate match), so
    // that a{100000}b over a long run of a's, which compares 10^5 characters at every start
    // in one step each, gives up as a*b does.
    void compared(std::size_t n) const {
        const bool shared = shared_budget.active;
        const std::size_t chars = shared ? shared_budget.chars : t_.size();
        if (((shared ? shared_budget.compared : text_compared_) += n) > Regex::max_text_steps(chars))
            throw InputError("tokenizer.json: regex " + shown_ + " gives up after comparing " +
                             std::to_string(Regex::max_text_steps(chars)) + " characters in repeats over a text of " +
                             std::to_string(chars) + " characters (catastrophic backtracking)");
    }

    bool seq(const Node& n, std::size_t part, std::size_t i, const Cont& k) const {
        if (part == n.items.size()) return k(i);
        return match(*n.items[part], i, [&](std::size_t j) { return seq(n, part + 1, j, k); });
    }

    // A repeated single character class (\s+, \p{L}+, [^...]*): the run is measured in a
    // loop and the continuation tried at each length, so that the stack does not grow with
    // the length of the text.
    bool repeat_chars(const Node& n, std::size_t i, const Cont& k) const {
        const Node& c = *n.items[0];
        std::size_t most = i;
        const std::size_t limit = n.max < 0 ? t_.size() : std::min(t_.size(), i + std::size_t(n.max));
        while (most < limit && chars_match(c, t_[most])) ++most;
        compared(most - i);
        const std::size_t least = i + std::size_t(n.min);
        if (most < least) return false;
        if (n.greedy) {
            for (std::size_t j = most + 1; j-- > least;)
                if (step(), k(j)) return true;
            return false;
        }
        for (std::size_t j = least; j <= most; ++j)
            if (step(), k(j)) return true;
        return false;
    }

    bool repeat(const Node& n, int count, std::size_t i, const Cont& k) const {
        const bool can_more = n.max < 0 || count < n.max;
        auto more = [&] {
            return can_more && match(*n.items[0], i, [&](std::size_t j) {
                       return j != i && repeat(n, count + 1, j, k);  // no empty iterations
                   });
        };
        if (n.greedy) return more() || (count >= n.min && k(i));
        return (count >= n.min && k(i)) || more();
    }

    std::u32string_view t_;
    const std::string& shown_;
    mutable std::size_t steps_ = 0, text_steps_ = 0, text_compared_ = 0;
    std::uintptr_t base_ = 0;
};

Regex::Regex(std::u32string_view pattern, Spaces spaces)
    : root_(Parser(pattern, spaces).parse()), shown_(quoted(pattern)) {}
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;
Regex::~Regex() = default;

std::pair<std::size_t, std::size_t> Regex::search(std::u32string_view text, std::size_t from) const {
    Matcher m(text, shown_);
    return search(m, from);
}

std::pair<std::size_t, std::size_t> Regex::search(Matcher& m, std::size_t from) const {
    for (std::size_t start = from; start <= m.size(); ++start) {
        m.start();
        std::size_t end = 0;
        if (m.match(*root_, start, [&](std::size_t j) { end = j; return true; })) return {start, end};
    }
    return {std::u32string_view::npos, std::u32string_view::npos};
}

std::vector<std::pair<std::size_t, std::size_t>> Regex::find_all(std::u32string_view text) const {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    Matcher m(text, shown_);  // one step budget over the whole text
    std::size_t at = 0;
    while (at <= text.size()) {
        auto [b, e] = search(m, at);
        if (b == std::u32string_view::npos) break;
        out.emplace_back(b, e);
        at = e > b ? e : e + 1;
    }
    return out;
}

}  // namespace attn::tokenize
