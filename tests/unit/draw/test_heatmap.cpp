// Terminal heatmap: a fixed input whose picture was worked out by hand from the rules in
// viz.hpp (range 0…max, five shade levels by floor(5·t), masked cells "××"), the colour
// indices of the 6×6×6 xterm cube, and the mask helper.
#include <doctest/doctest.h>

#include "test_util.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "attn/viz.hpp"
#include "draw/text_util.hpp"

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

// Wide characters take two columns and a combining accent none: cells stay aligned (the labels
// were padded by code points). Worked out by hand: row labels padded to 4 columns ("日本" is 4).
TEST_CASE("heatmap: CJK, emoji and combining labels keep the cells aligned") {
    attn::ScoreMask sm;
    sm.causal = attn::Causal::top_left;
    const std::string got = attn::viz::heatmap_text(causal_weights(), {"日本", "e\u0301", "😀"}, {"日本", "e\u0301", "x"},
                                                    false, attn::viz::cell_mask(sm, 3, 3));
    const std::string want =
        "     日e\u0301 x\n"
        "     本\n"
        "日本 ██××××\n"
        "e\u0301    ▒▒▒▒××\n"
        "😀   ░░░░▒▒\n"
        "\n"
        "legend: [  ░░▒▒▓▓██] 0 … 1 (linear)   ×× masked\n"
        "        rows: queries, columns: keys\n";
    CHECK(got == want);
}

TEST_CASE("heatmap: wider than the line, column blocks with titles, as the tables wrap") {
    attn::ScoreMask sm;
    sm.causal = attn::Causal::top_left;
    // Labels take 3 columns ("bb" + a space), each cell 2: a line of 7 holds two cells.
    const std::string got = attn::viz::heatmap_text(causal_weights(), {"a", "bb", "c"}, {"a", "bb", "c"}, false,
                                                    attn::viz::cell_mask(sm, 3, 3), 7);
    const std::string want =
        "columns 0\u20131:\n"
        "   a b\n"
        "     b\n"
        "a  ██××\n"
        "bb ▒▒▒▒\n"
        "c  ░░░░\n"
        "\n"
        "column 2:\n"
        "   c\n"
        "a  ××\n"
        "bb ××\n"
        "c  ▒▒\n"
        "\n"
        "legend: [  ░░▒▒▓▓██] 0 … 1 (linear)   ×× masked\n"
        "        rows: queries, columns: keys\n";
    CHECK(got == want);
    // Wide enough (or 0 = never wrap): the unwrapped picture.
    const std::string whole = attn::viz::heatmap_text(causal_weights(), {"a", "bb", "c"}, {"a", "bb", "c"}, false,
                                                      attn::viz::cell_mask(sm, 3, 3));
    CHECK(attn::viz::heatmap_text(causal_weights(), {"a", "bb", "c"}, {"a", "bb", "c"}, false,
                                  attn::viz::cell_mask(sm, 3, 3), 9) == whole);
    CHECK(whole.find("column 2") == std::string::npos);
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
    unsetenv("COLORTERM");
    attn::ScoreMask sm;
    sm.causal = attn::Causal::top_left;
    const std::string got = attn::viz::heatmap_text(causal_weights(), {}, {}, true, attn::viz::cell_mask(sm, 3, 3));
    // 6 unmasked cells + 20 legend swatches (one per level); 3 masked cells.
    CHECK(count(got, "\x1b[48;5;") == 6 + 20);
    CHECK(count(got, "\x1b[38;5;244m××") == 3);
    // max (1.0): viridis' yellow end (253,231,37) → cube (255,215,0) = 16+36·5+6·4+0 = 220;
    // the range's low end: viridis' (68,1,84) → cube navy (0,0,95) = 16+1 = 17.
    CHECK(got.find("0 \x1b[48;5;220m  ") != std::string::npos);
    CHECK(got.find("legend: \x1b[48;5;17m  ") != std::string::npos);
}

namespace {

// The xterm cube colour of a 256-colour index (16..231), and its relative luminance.
double cube_luminance(int index) {
    static constexpr int steps[] = {0, 95, 135, 175, 215, 255};
    const int i = index - 16;
    auto lin = [](int v) {
        const double u = v / 255.0;
        return u <= 0.04045 ? u / 12.92 : std::pow((u + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * lin(steps[i / 36]) + 0.7152 * lin(steps[i / 6 % 6]) + 0.0722 * lin(steps[i % 6]);
}

// The 256-colour indices of the cells of a one-row heatmap, left to right.
std::vector<int> cell_indices(const std::string& picture) {
    std::vector<int> out;
    const std::string row = picture.substr(0, picture.find("\n\nlegend"));
    for (std::size_t p = row.find("\x1b[48;5;"); p != std::string::npos; p = row.find("\x1b[48;5;", p + 1))
        out.push_back(std::stoi(row.substr(p + 7)));
    return out;
}

}  // namespace

TEST_CASE("heatmap: at least 16 distinct 256-colour levels, each lighter than the last") {
    unsetenv("COLORTERM");
    attn::Matrix w(1, 20);
    for (int k = 0; k < 20; ++k) w(0, std::size_t(k)) = float(k) / 19;
    const std::vector<int> idx = cell_indices(attn::viz::heatmap_text(w, {}, {}, true));
    REQUIRE(idx.size() == 20);
    for (std::size_t k = 1; k < idx.size(); ++k) {
        INFO("cell " << k << ": index " << idx[k - 1] << " then " << idx[k]);
        CHECK(idx[k] >= 16);
        CHECK(idx[k] <= 231);
        CHECK(cube_luminance(idx[k]) > cube_luminance(idx[k - 1]));  // strictly: distinct and ordered
    }
    // The example: 0.20, 0.25 and 0.30 on a 0…1 scale are three colours.
    attn::Matrix v(1, 5);
    v(0, 0) = 0, v(0, 1) = 0.2f, v(0, 2) = 0.25f, v(0, 3) = 0.3f, v(0, 4) = 1;
    const std::vector<int> three = cell_indices(attn::viz::heatmap_text(v, {}, {}, true));
    REQUIRE(three.size() == 5);
    CHECK(three[1] != three[2]);
    CHECK(three[2] != three[3]);
}

TEST_CASE("heatmap: 24-bit colour when COLORTERM=truecolor") {
    setenv("COLORTERM", "truecolor", 1);
    const std::string got = attn::viz::heatmap_text(causal_weights(), {}, {}, true);
    unsetenv("COLORTERM");
    CHECK(got.find("\x1b[48;5;") == std::string::npos);
    CHECK(got.find("0 \x1b[48;2;253;231;37m  ") != std::string::npos);  // 1.0: viridis' last stop
    CHECK(got.find("\x1b[48;2;68;1;84m  ") != std::string::npos);       // 0.0 (row 1): its first stop
    // colour stays off without a terminal, whatever COLORTERM says
    setenv("COLORTERM", "truecolor", 1);
    CHECK(attn::viz::heatmap_text(causal_weights(), {}, {}, false).find("\x1b[") == std::string::npos);
    unsetenv("COLORTERM");
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

TEST_CASE("heatmap labels: truncate keeps whole code points and reads only what it keeps") {
    using attn::viz::detail::truncate;
    CHECK(truncate("abc", 3) == "abc");
    CHECK(truncate("abcd", 3) == "ab…");
    CHECK(truncate("héllo", 3) == "hé…");            // é is two bytes
    CHECK(truncate("日本語です", 4) == "日本語…");  // three bytes each
    CHECK(truncate("a\xff" "bc", 3) == "a\xff…");   // an invalid byte is one code point
    CHECK(truncate("", 0) == "");
    CHECK(truncate("x", 0) == "…");
    // A label of 16 MiB: cut to its first 15 characters (it built a string per character).
    const std::string huge(16u << 20, 'a');
    CHECK(truncate(huge, 16) == std::string(15, 'a') + "…");
}
