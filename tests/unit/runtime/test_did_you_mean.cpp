// "Did you mean": the edit distance against hand-counted edits, and the suggestion's bound.
#include <doctest/doctest.h>

#include "runtime/did_you_mean.hpp"

using attn::did_you_mean;
using attn::edit_distance;

TEST_CASE("did you mean: the edit distance counts insertions, deletions, substitutions and swaps") {
    CHECK(edit_distance("", "") == 0);
    CHECK(edit_distance("", "abc") == 3);
    CHECK(edit_distance("abc", "") == 3);
    CHECK(edit_distance("weight", "weights") == 1);    // one insertion
    CHECK(edit_distance("shwo", "show") == 1);         // one swap of neighbours
    CHECK(edit_distance("attnd", "attend") == 1);      // one insertion
    CHECK(edit_distance("jsn", "json") == 1);
    CHECK(edit_distance("kitten", "sitting") == 3);    // the textbook case: 2 substitutions, 1 insertion
    CHECK(edit_distance("ca", "abc") == 3);            // optimal string alignment, not full Damerau (2)
    CHECK(edit_distance("JSON", "json") == 0);         // case is ignored
    CHECK(edit_distance("abcdef", "badcfe") == 3);     // three swaps
}

TEST_CASE("did you mean: the nearest candidates within max(3, length)/3 edits") {
    const std::vector<std::string> show{"queries", "keys", "values", "scores", "scaled", "weights", "weights-mean", "context"};
    CHECK(did_you_mean("weight", show) == "; did you mean 'weights'?");
    CHECK(did_you_mean("contxt", show) == "; did you mean 'context'?");
    CHECK(did_you_mean("scors", show) == "; did you mean 'scores'?");
    CHECK(did_you_mean("xyz", show).empty());
    CHECK(did_you_mean("weigh", show) == "; did you mean 'weights' or 'weights-mean'?");  // 2 edits: the names it begins
    CHECK(did_you_mean("wei", show) == "; did you mean 'weights' or 'weights-mean'?");
    CHECK(did_you_mean("rand", {"attend", "random", "positions"}) == "; did you mean 'random'?");
    CHECK(did_you_mean("MAT", {"matmul", "mask"}) == "; did you mean 'matmul'?");
    CHECK(did_you_mean("we", show).empty());              // 2 letters: too short to complete
    CHECK(did_you_mean("querieszzzzz", show).empty());    // 5 edits, bound 4; longer than any name: no completion
    CHECK(did_you_mean("weihgts-mena", show) == "; did you mean 'weights-mean'?");  // 2 swaps, bound 4
    CHECK(did_you_mean("shwo", {"show", "shape"}, "--") == "; did you mean '--show'?");
    // Ties are all listed, in the order given.
    CHECK(did_you_mean("kk", {"kv", "wk", "x", "bk"}, "--") == "; did you mean '--kv', '--wk' or '--bk'?");
    CHECK(did_you_mean("ab", {"ax", "xb"}) == "; did you mean 'ax' or 'xb'?");
    CHECK(did_you_mean("anything", {}).empty());
}
