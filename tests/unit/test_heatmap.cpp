// Terminal heatmap: a fixed input whose picture was worked out by hand from the rules in
// viz.hpp (range 0…max, five shade levels by floor(5·t), masked cells "××"), the colour
// indices of the 6×6×6 xterm cube, and the mask helper.
#include <doctest/doctest.h>

#include "test_util.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "attn/viz.hpp"

namespace {

attn::Matrix causal_weights() {
    attn::Matrix w(3, 3);
    w(0, 0) = 1.0f;
    w(1, 0) = 0.5f, w(1, 1) = 0.5f;
    w(2, 0) = 0.2f, w(2, 1) = 0.3f, w(2, 2) = 0.5f;
    return w;
}

using test_util::count;

}  // namespace

TEST_CASE("heatmap: shade characters, vertical column labels, masked cells, legend") {
    attn::ScoreMask sm;
    sm.causal = attn::Causal::top_left;
    const std::string got =
        attn::viz::heatmap_text(causal_weights(), {"a", "bb", "c"}, {"a", "bb", "c"}, false, attn::viz::cell_mask(sm, 3, 3));
    const std::string want =
        "   a b c\n"
        "     b\n"
        "a  ██××××\n"
        "bb ▒▒▒▒××\n"
        "c  ░░░░▒▒\n"
        "\n"
        "legend: [  ░░▒▒▓▓██] 0 … 1 (linear)   ×× masked\n"
        "        rows: queries, columns: keys\n";
    CHECK(got == want);
}

TEST_CASE("heatmap: a masked zero differs from an unmasked tiny weight") {
    attn::Matrix w(1, 3);
    w(0, 0) = 1.0f, w(0, 1) = 1e-30f, w(0, 2) = 0.0f;
    const std::string got = attn::viz::heatmap_text(w, {}, {}, false, [](std::size_t, std::size_t j) { return j == 2; });
    CHECK(got.find("0 ██  ××\n") != std::string::npos);  // row label "0", tiny = blank, masked = ××
    const std::string unmasked = attn::viz::heatmap_text(w, {}, {}, false);
    CHECK(unmasked.find("××") == std::string::npos);
    CHECK(unmasked.find("0 ██    \n") != std::string::npos);
}

TEST_CASE("heatmap: 256-colour cells from the viridis ends, masked in grey") {
    attn::ScoreMask sm;
    sm.causal = attn::Causal::top_left;
    const std::string got = attn::viz::heatmap_text(causal_weights(), {}, {}, true, attn::viz::cell_mask(sm, 3, 3));
    // 6 unmasked cells + 8 legend swatches; 3 masked cells.
    CHECK(count(got, "\x1b[48;5;") == 6 + 8);
    CHECK(count(got, "\x1b[38;5;244m××") == 3);
    // max (1.0): viridis end (253,231,37) → cube levels (5,4,0) → 16+180+24 = 220;
    // min of the range (0): (68,1,84) → levels (1,0,1) → 16+36+1 = 53 (first legend swatch).
    CHECK(got.find("0 \x1b[48;5;220m  ") != std::string::npos);
    CHECK(got.find("legend: \x1b[48;5;53m  ") != std::string::npos);
}

TEST_CASE("heatmap: labels of the wrong length fall back to indices; control characters are neutralised") {
    attn::Matrix w(2, 2, 0.5f);
    const std::string got = attn::viz::heatmap_text(w, {"only-one"}, {"x\x1b", "y"}, false);
    CHECK(got.find("only-one") == std::string::npos);
    CHECK(got.find("\x1b") == std::string::npos);
    CHECK(got.find("\n1 ") != std::string::npos);
}

TEST_CASE("cell_mask: causal limits, mask zeros and -inf bias") {
    attn::ScoreMask none;
    CHECK(!attn::viz::cell_mask(none, 2, 2));
    attn::Matrix mask(2, 3, 1.0f), bias(2, 3, 0.0f);
    mask(0, 2) = 0.0f;
    bias(1, 0) = -std::numeric_limits<float>::infinity();
    attn::ScoreMask sm;
    sm.mask = &mask;
    sm.bias = &bias;
    const attn::viz::CellMask m = attn::viz::cell_mask(sm, 2, 3);
    CHECK(m(0, 2));
    CHECK(m(1, 0));
    CHECK(!m(0, 0));
    CHECK(!m(1, 2));
    sm.causal = attn::Causal::bottom_right;  // Tk - Tq = 1: row 0 sees keys 0..1
    const attn::viz::CellMask c = attn::viz::cell_mask(sm, 2, 3);
    CHECK(!c(0, 1));
    CHECK(c(0, 2));
}

TEST_CASE("want_color: terminal and NO_COLOR") {
    ::unsetenv("NO_COLOR");
    CHECK(attn::viz::want_color(true));
    CHECK(!attn::viz::want_color(false));
    ::setenv("NO_COLOR", "1", 1);
    CHECK(!attn::viz::want_color(true));
    ::setenv("NO_COLOR", "", 1);
    CHECK(attn::viz::want_color(true));
    ::unsetenv("NO_COLOR");
}
