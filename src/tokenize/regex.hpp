// Internal to src/tokenize: a small backtracking regular-expression engine over code points,
// for the patterns of tokenizer.json (Split, Replace) and GPT-2's pre-tokenizer. It knows
// what those patterns use: literals and escapes, classes with ranges and \p{..}, '.',
// groups (capturing, (?:..), (?i:..)), look-ahead (?=..) (?!..), alternation, and the
// quantifiers * + ? {m,n} (greedy, lazy '?', possessive '+'). Anything else is refused with
// an InputError naming the pattern, never guessed. As Oniguruma (Hugging Face's engine) does,
// a hostile pattern is an InputError too: groups nest at most max_nesting deep, a match
// attempt gives up past max_steps steps or max_stack bytes of stack, and the attempts over
// one text past max_text_steps.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn::tokenize {

// The Rust regex crate's \w (Alphabetic, marks, Nd, Pc, Join_Control): the word characters
// of the Whitespace pre-tokenizer and of an added token's single_word.
bool rust_word_character(char32_t c);

class Regex {
public:
    // Whose classes \s, \d and \w are.
    enum class Spaces {
        unicode,     // Oniguruma's (tokenizer.json patterns): \s White_Space, \w Alphabetic, marks, Nd, Pc
        javascript,  // ECMAScript's (GPT-2's pattern as a JavaScript literal): ASCII \d and \w
        rust,        // the Rust regex crate's (the Whitespace pre-tokenizer): Oniguruma's, \w with Join_Control
    };
    static constexpr int max_nesting = 256;
    static constexpr std::size_t max_steps = 10'000'000;     // Oniguruma's retry limit in a match
    // All the attempts over one text: a pattern that backtracks just under max_steps at each
    // position would otherwise take hours. GPT-2's, a ByteLevel Split's and BERT's patterns
    // take 2-7 steps per character of a 950 KB text; a*a*b over 2,000 a's took 22 s and now
    // stops in 0.1 s. The text is the one a TextBudget on this thread was made for (a whole
    // encode: every normalizer and pre-tokenizer and every piece of it), else each search or
    // find_all's own.
    static constexpr std::size_t max_text_steps_per_char = 1000;
    static constexpr std::size_t max_text_steps(std::size_t chars) { return max_steps + max_text_steps_per_char * chars; }

    // While one lives, every match on this thread counts against one budget of
    // max_text_steps(chars) (nested ones: the outermost).
    class TextBudget {
    public:
        explicit TextBudget(std::size_t chars);
        ~TextBudget();
        TextBudget(const TextBudget&) = delete;
        TextBudget& operator=(const TextBudget&) = delete;

    private:
        bool outer_;
    };
    static constexpr std::size_t max_stack = std::size_t(1) << 20;  // a fraction of any thread's stack

    Regex(std::u32string_view pattern, Spaces spaces);
    Regex(Regex&&) noexcept;
    Regex& operator=(Regex&&) noexcept;
    ~Regex();

    // The leftmost match at or after `from`, as [begin, end); {npos, npos} when none.
    std::pair<std::size_t, std::size_t> search(std::u32string_view text, std::size_t from) const;
    // Every non-overlapping match, left to right (an empty match advances by one).
    std::vector<std::pair<std::size_t, std::size_t>> find_all(std::u32string_view text) const;

    class Matcher;

    struct Node;

private:
    std::pair<std::size_t, std::size_t> search(Matcher& m, std::size_t from) const;

    std::unique_ptr<Node> root_;
    std::string shown_;  // the pattern as error messages quote it
};

}  // namespace attn::tokenize
