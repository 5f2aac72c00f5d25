// SVG writers: well-formed XML (a small checker here; the e2e test also runs xmllint), the
// expected number of cells and points, escaping, masked cells, values shown only when small.
#include <doctest/doctest.h>

#include "test_util.hpp"

#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attn/viz.hpp"
#include "attn/viz_grid.hpp"

namespace {

// Checks nesting of elements, quoted attributes, and that text has no raw '<' or stray '&'.
// Returns "" when well-formed, else a description of the first problem.
std::string xml_problem(const std::string& s) {
    std::vector<std::string> stack;
    std::size_t i = 0;
    auto entity_ok = [&](std::size_t at) {
        for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
            if (s.compare(at, std::string(e).size(), e) == 0) return true;
        return false;
    };
    while (i < s.size()) {
        if (s[i] == '&') {
            if (!entity_ok(i)) return "bad entity at " + std::to_string(i);
            ++i;
            continue;
        }
        if (s[i] == '>') return "stray '>' at " + std::to_string(i);
        if (s[i] != '<') {
            ++i;
            continue;
        }
        if (s.compare(i, 5, "<?xml") == 0) {
            const std::size_t end = s.find("?>", i);
            if (end == std::string::npos) return "unterminated declaration";
            i = end + 2;
            continue;
        }
        const bool closing = s[i + 1] == '/';
        std::size_t j = i + (closing ? 2 : 1);
        std::string name;
        while (j < s.size() && (std::isalnum((unsigned char)s[j]) || s[j] == '-' || s[j] == ':')) name += s[j++];
        if (name.empty()) return "tag without a name at " + std::to_string(i);
        // Attributes: name="value" pairs, values without '<' and with valid entities.
        while (j < s.size() && s[j] != '>' && !(s[j] == '/' && s[j + 1] == '>')) {
            if (s[j] == ' ' || s[j] == '\n') {
                ++j;
                continue;
            }
            while (j < s.size() && s[j] != '=' && s[j] != '>') ++j;
            if (j + 1 >= s.size() || s[j] != '=' || s[j + 1] != '"') return "unquoted attribute in <" + name + ">";
            const std::size_t close = s.find('"', j + 2);
            if (close == std::string::npos) return "unterminated attribute";
            for (std::size_t k = j + 2; k < close; ++k) {
                if (s[k] == '<') return "'<' in an attribute of <" + name + ">";
                if (s[k] == '&' && !entity_ok(k)) return "bad entity in an attribute of <" + name + ">";
            }
            j = close + 1;
        }
        if (j >= s.size()) return "unterminated tag <" + name + ">";
        const bool self_closing = s[j] == '/';
        if (closing) {
            if (stack.empty() || stack.back() != name) return "</" + name + "> does not close the open element";
            stack.pop_back();
        } else if (!self_closing) {
            stack.push_back(name);
        }
        i = j + (self_closing ? 2 : 1);
    }
    if (!stack.empty()) return "<" + stack.back() + "> never closed";
    return "";
}

using test_util::count;

}  // namespace

TEST_CASE("xml checker catches what it should") {
    CHECK(xml_problem("<svg><g></g></svg>").empty());
    CHECK(!xml_problem("<svg><g></svg>").empty());
    CHECK(!xml_problem("<svg><text>a < b</text></svg>").empty());
    CHECK(!xml_problem("<svg><text>a & b</text></svg>").empty());
    CHECK(!xml_problem("<svg x=1></svg>").empty());
}

TEST_CASE("svg heatmap: one cell per entry, values when small, escaped labels, title") {
    attn::Matrix m(3, 4);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 4; ++j) m(i, j) = float(i * 4 + j) / 11.0f;
    attn::viz::SvgHeatmapOptions opt;
    opt.row_labels = {"<b>", "a&b", "\"q\""};
    opt.col_labels = {"k0", "k1", "k'2", "k3"};
    opt.scale_text = "scale 1/√2";
    const std::string svg = attn::viz::svg_heatmap(m, opt);
    CHECK(xml_problem(svg) == "");
    CHECK(count(svg, "<rect class=\"cell") == 12);
    CHECK(count(svg, "class=\"cell masked\"") == 0);
    CHECK(count(svg, "class=\"value\"") == 12);
    CHECK(svg.find("&lt;b&gt;") != std::string::npos);
    CHECK(svg.find("a&amp;b") != std::string::npos);
    CHECK(svg.find("k&apos;2") != std::string::npos);
    CHECK(svg.find("weights · 3×4 · scale 1/√2 · no mask") != std::string::npos);
    CHECK(svg.find(">1.00<") != std::string::npos);  // the largest value, 11/11
    CHECK(count(svg, "class=\"colorbar\"") == 1);
}

TEST_CASE("svg heatmap: masked cells are hatched and excluded from the range; no values when large") {
    attn::Matrix m(20, 20, 0.05f);
    const std::string svg = attn::viz::svg_heatmap(m, {});
    CHECK(xml_problem(svg) == "");
    CHECK(count(svg, "<rect class=\"cell") == 400);
    CHECK(count(svg, "class=\"value\"") == 0);

    attn::Matrix w(4, 4);
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j <= i; ++j) w(i, j) = 1.0f / float(i + 1);
    attn::viz::SvgHeatmapOptions opt;
    opt.masking_text = "causal mask";
    opt.masked = [](std::size_t i, std::size_t j) { return j > i; };
    const std::string causal = attn::viz::svg_heatmap(w, opt);
    CHECK(xml_problem(causal) == "");
    CHECK(count(causal, "class=\"cell masked\"") == 6);
    CHECK(count(causal, "class=\"value\"") == 10);
    CHECK(causal.find("range 0 … 1") != std::string::npos);
    CHECK(causal.find(">masked</text>") != std::string::npos);  // legend swatch

    attn::Matrix bad(1, 2);
    bad(0, 0) = std::numeric_limits<float>::quiet_NaN();
    bad(0, 1) = 1.0f;
    const std::string nan_svg = attn::viz::svg_heatmap(bad, {});
    CHECK(count(nan_svg, "class=\"cell masked\"") == 1);
    CHECK(nan_svg.find("nan") == std::string::npos);
}

TEST_CASE("svg variance plot: one point per d_k in every series, well-formed") {
    attn::VarianceExperiment e;
    e.d_ks = {1, 4, 16, 64};
    e.batch = 2;
    e.rows = 8;
    const std::vector<attn::VarianceResult> r = attn::run_variance_experiment(e);
    const std::string svg = attn::viz::svg_variance_plot(r, e);
    CHECK(xml_problem(svg) == "");
    for (const char* series : {"var-unscaled", "var-scaled", "maxw-unscaled", "maxw-scaled", "ent-unscaled", "ent-scaled"})
        CHECK(count(svg, std::string("class=\"pt ") + series + "\"") == 4);
    CHECK(count(svg, "<polyline") == 2 + 2 + 4);  // two theory lines, two variance series, four softmax series
    CHECK(svg.find("theory d_k·σ⁴") != std::string::npos);
}

TEST_CASE("xml_escape") {
    CHECK(attn::viz::xml_escape("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&apos;");
    CHECK(attn::viz::xml_escape("tab\there") == "tab?here");
    // Invalid UTF-8 (stray, truncated, overlong, surrogate) and U+FFFE/U+FFFF are not allowed in
    // XML: each bad byte becomes U+FFFD; valid multi-byte text passes through.
    const std::string rep = "\xEF\xBF\xBD";
    CHECK(attn::viz::xml_escape("a\xFF") == "a" + rep);
    CHECK(attn::viz::xml_escape("b\xC3") == "b" + rep);
    CHECK(attn::viz::xml_escape("\xC0\xAF") == rep + rep);
    CHECK(attn::viz::xml_escape("\xED\xA0\x80") == rep + rep + rep);
    CHECK(attn::viz::xml_escape("\xEF\xBF\xBE") == rep + rep + rep);
    CHECK(attn::viz::xml_escape("\xE2\x80\x94 \xF0\x9F\x98\x80 \xC3\xA9") == "\xE2\x80\x94 \xF0\x9F\x98\x80 \xC3\xA9");
}

namespace {

// Numbers following `key` in `text`, in order (e.g. key = "translate(" gives the x of each).
std::vector<double> numbers_after(const std::string& text, const std::string& key) {
    std::vector<double> out;
    for (std::size_t p = text.find(key); p != std::string::npos; p = text.find(key, p + 1))
        out.push_back(std::stod(text.substr(p + key.size())));
    return out;
}

}  // namespace

TEST_CASE("svg heatmap: labels never overlap, however many there are") {
    for (std::size_t n : {8u, 16u, 40u, 100u, 128u}) {
        INFO(n << "x" << n);
        attn::Matrix m(n, n, 0.5f);
        attn::viz::SvgHeatmapOptions opt;
        for (std::size_t i = 0; i < n; ++i) opt.row_labels.push_back("token" + std::to_string(i));
        opt.col_labels = opt.row_labels;
        const std::string svg = attn::viz::svg_heatmap(m, opt);
        // column labels: one <text class="col-label" font-size="F" ... translate(X,Y) rotate(-45)>
        const std::vector<double> font = numbers_after(svg, "class=\"col-label\" font-size=\"");
        const std::vector<double> x = numbers_after(svg, "transform=\"translate(");
        REQUIRE(font.size() >= 2);
        // Two parallel 45° baselines dx apart are dx·sin 45° apart; a line of text needs 1.1 em.
        for (std::size_t k = 1; k < font.size(); ++k) CHECK((x[k] - x[k - 1]) * std::sqrt(0.5) >= font[k] * 1.1 - 1e-9);
        // row labels: baselines at least 1.1 em apart
        std::vector<double> ys;
        for (std::size_t p = svg.find("class=\"row-label\""); p != std::string::npos; p = svg.find("class=\"row-label\"", p + 1)) {
            const std::size_t y = svg.rfind(" y=\"", p);
            ys.push_back(std::stod(svg.substr(y + 4)));
        }
        for (std::size_t k = 1; k < ys.size(); ++k) CHECK(ys[k] - ys[k - 1] >= font[0] * 1.1 - 1e-9);
    }
}

TEST_CASE("svg heatmap: values only when the widest fits its cell") {
    attn::Matrix fits(16, 16, 0.5f);  // "0.50": 4 characters
    CHECK(count(attn::viz::svg_heatmap(fits, {}), "class=\"value\"") == 256);
    attn::Matrix wide(16, 16, 0.5f);
    wide(3, 7) = -1.25e-5f;  // "-1.2e-05": 8 characters do not fit a 35 px cell at 7 px or more
    CHECK(count(attn::viz::svg_heatmap(wide, {}), "class=\"value\"") == 0);
    attn::Matrix small(2, 2, 0.5f);
    small(0, 0) = -1.25e-5f;  // large cells: it fits
    CHECK(count(attn::viz::svg_heatmap(small, {}), "class=\"value\"") == 4);
}

TEST_CASE("svg heatmap: large matrices are max-pooled, not refused") {
    // 200x10: blocks of 2x1 (ceil(200/128), ceil(10/128)) → 100x10 cells
    attn::Matrix m(200, 10, 0.0f);
    m(101, 7) = 0.75f;   // block (50, 7)
    m(100, 7) = 0.5f;    // same block: the maximum wins
    m(199, 9) = 0.25f;   // the last block
    attn::viz::SvgHeatmapOptions opt;
    opt.masked = [](std::size_t i, std::size_t) { return i < 2; };  // block row 0 entirely masked
    const std::string svg = attn::viz::svg_heatmap(m, opt);
    CHECK(xml_problem(svg) == "");
    CHECK(count(svg, "<rect class=\"cell") == 100 * 10);
    CHECK(count(svg, "class=\"cell masked\"") == 10);
    CHECK(svg.find("max-pooled from 200×10, blocks of 2×1") != std::string::npos);
    CHECK(svg.find("<title>100–101 → 7: 0.75</title>") != std::string::npos);
    CHECK(svg.find("<title>198–199 → 9: 0.25</title>") != std::string::npos);
    CHECK(svg.find("range 0 … 0.75") != std::string::npos);
}

TEST_CASE("svg colour scale: weights drawn from 0, a constant at its place on the bar") {
    // Weights all above half the largest: the bar still starts at 0, as the terminal heatmap
    // and the HTML view draw the same data (it started at the smallest, 0.24 dark, 0.26 yellow).
    attn::Matrix close(1, 2);
    close(0, 0) = 0.24f, close(0, 1) = 0.26f;
    const std::string svg = attn::viz::svg_heatmap(close, {});
    CHECK(svg.find("range 0 … 0.26") != std::string::npos);
    CHECK(svg.find("fill=\"" + std::string("#fde725") + "\"") != std::string::npos);  // 0.26: the top
    CHECK(svg.find("fill=\"#440154\"") == std::string::npos);                       // 0.24 is not the bottom
    // One weight of exactly 1: yellow on a bar 0 … 1 (it was mid-teal on a bar labelled 1 five times).
    attn::Matrix one(1, 1, 1.0f);
    const std::string s1 = attn::viz::svg_heatmap(one, {});
    CHECK(s1.find("class=\"cell\" x=") != std::string::npos);
    CHECK(s1.find("fill=\"#fde725\">") != std::string::npos);
    CHECK(s1.find(">0.25</text>") != std::string::npos);
    CHECK(count(s1, ">1</text>") == 1);
    // Every value 0: dark, on a bar 0 … 1.
    attn::Matrix zero(2, 2, 0.0f);
    const std::string s0 = attn::viz::svg_heatmap(zero, {});
    CHECK(count(s0, "fill=\"#440154\">") == 4);
    CHECK(s0.find("range 0 … 1") != std::string::npos);
    // The grid of heads: the same rule.
    std::vector<attn::viz::GridPanel> panels{{"head 0", close, {}}, {"head 1", close, {}}};
    const std::string g = attn::viz::svg_grid(panels, {});
    CHECK(g.find("range 0 … 0.26") != std::string::npos);
    std::vector<attn::viz::GridPanel> ones{{"head 0", one, {}}, {"head 1", one, {}}};
    const std::string g1 = attn::viz::svg_grid(ones, {});
    CHECK(count(g1, "fill=\"#fde725\">") == 2);
    CHECK(g1.find(">0.25</text>") != std::string::npos);
}

TEST_CASE("svg grid and heatmap: the picture is as wide as its title") {
    // The title of 2 causal heads of 5x5 was cut at the 420 px the grid's panels needed.
    attn::Matrix m(5, 5, 0.2f);
    std::vector<attn::viz::GridPanel> panels{{"head 0", m, {}}, {"head 1", m, {}}};
    attn::viz::SvgGridOptions go;
    go.scale_text = "scale 1/√4 = 0.5";
    go.masking_text = "causal (top-left)";
    const std::string g = attn::viz::svg_grid(panels, go);
    const std::string title = "weights · 2 panels of 5×5 · scale 1/√4 = 0.5 · causal (top-left)";
    REQUIRE(g.find(">" + title + "</text>") != std::string::npos);
    // at least 0.6 em (15 px bold) a character past the title's left edge, 16 px
    CHECK(numbers_after(g, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")[0] >= 16 + 0.6 * 15 * 64);
    attn::viz::SvgHeatmapOptions ho;
    ho.what = "weights [1, 1]";
    ho.scale_text = "scale 1/√4 = 0.5";
    ho.masking_text = "causal (top-left), window 3:0, padding mask";
    const std::string h = attn::viz::svg_heatmap(attn::Matrix(2, 2, 0.5f), ho);
    CHECK(numbers_after(h, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")[0] >= 36 + 0.6 * 16 * 72);
}

TEST_CASE("svg grid: many heads of many tokens are max-pooled, with a note") {
    // 16 heads of 128x128 were 262,144 cells (24 MB): pooled to at most 2^15 cells in all.
    std::vector<attn::viz::GridPanel> panels;
    for (std::size_t h = 0; h < 16; ++h) {
        attn::Matrix m(128, 128, 0.0f);
        m(100, 37) = 0.5f + 0.01f * float(h);  // an isolated peak, kept by max-pooling
        panels.push_back({"head " + std::to_string(h), m, [](std::size_t i, std::size_t j) { return j > i; }});
    }
    const std::string g = attn::viz::svg_grid(panels, {});
    CHECK(xml_problem(g) == "");
    const std::size_t cells = count(g, "<rect class=\"cell");
    CHECK(cells <= (1u << 15));
    CHECK(cells == 16 * 43 * 43);  // blocks of 3x3
    CHECK(g.find("weights (max-pooled from 128×128, blocks of 3×3) · 16 panels of 43×43") != std::string::npos);
    CHECK(g.find("range 0 … 0.65") != std::string::npos);  // head 15's peak survives
    CHECK(count(g, "class=\"cell masked\"") == 16 * (43 * 42 / 2));  // blocks wholly above the diagonal
    CHECK(g.size() < 4000000);
    // Beyond 128 a side, as one heatmap: 2 heads of 200x10 are 100x10 each.
    std::vector<attn::viz::GridPanel> tall{{"head 0", attn::Matrix(200, 10, 0.1f), {}}, {"head 1", attn::Matrix(200, 10, 0.1f), {}}};
    const std::string t = attn::viz::svg_grid(tall, {});
    CHECK(count(t, "<rect class=\"cell") == 2 * 100 * 10);
    CHECK(t.find("max-pooled from 200×10, blocks of 2×1") != std::string::npos);
    // Small grids are drawn cell by cell.
    std::vector<attn::viz::GridPanel> small{{"head 0", attn::Matrix(4, 4, 0.1f), {}}, {"head 1", attn::Matrix(4, 4, 0.1f), {}}};
    CHECK(attn::viz::svg_grid(small, {}).find("max-pooled") == std::string::npos);
}
