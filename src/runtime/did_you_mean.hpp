// "Did you mean": the suggestion every refusal of a mistyped name ends with (a command, an
// option, an option's value, an --show item), as git and cargo suggest. One rule for all:
// the candidates at the smallest edit distance from the word given, counting insertions,
// deletions, substitutions and swaps of neighbours (optimal string alignment), if that
// distance is at most max(3, length)/3, rustc's bound: 1 for words up to 5 letters, 2 up
// to 8, and so on; when none is that near, the candidates that begin with the word given, of
// 3 letters or more (a name cut short: "rand", "mat"). Case is ignored.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

// The edit distance above (exposed for its test).
std::size_t edit_distance(std::string_view a, std::string_view b);

// "; did you mean 'X'?" or "; did you mean 'X' or 'Y'?" (the nearest candidates, in the
// order given, each written with `prefix`, e.g. "--"), or "" when no candidate is near.
std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates,
                         std::string_view prefix = "");

}  // namespace attn
