// The HTML view's page: embedded data, escaping, shapes accepted. What the page draws is
// checked in a real browser by `make test-browser` (tests/browser/run.sh).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/html_view.hpp"
#include "test_util.hpp"

using attn::Shape;
using attn::Tensor;

TEST_CASE("html view: weights, labels and masks go into the page's data") {
    attn::Matrix w(2, 3);
    w(0, 0) = 0.25f, w(0, 1) = 0.75f, w(0, 2) = 0.0f;
    w(1, 0) = NAN, w(1, 1) = NAN, w(1, 2) = NAN;  // a fully masked row under --masked-rows nan
    attn::viz::HtmlViewOptions o;
    o.query_labels = {"a</script><b>", "q\"2"};
    o.key_labels = {"x", "y", "z"};
    o.masking_text = "mask";
    o.masked = [](std::size_t, std::size_t q, std::size_t k) { return q == 1 || k == 2; };
    const std::string page = attn::viz::html_view(attn::view_of(w), o);
    // 8-bit codes round(255·w) (masked and NaN cells 0), one mask bit a cell (cells 2..5:
    // 0b00111100), the exact float32 values little-endian; base64 from Python's base64 module
    CHECK(page.find("\"codes\":\"QL8AAAAA\",\"mask\":\"PA==\",\"exact\":\"AACAPgAAQD8AAAAAAADAfwAAwH8AAMB/\"") !=
          std::string::npos);
    // a label cannot end the script element early
    CHECK(page.find("a\\u003c/script\\u003e\\u003cb\\u003e") != std::string::npos);
    CHECK(test_util::count(page, "</script>") == 2);
    CHECK(page.find("\"q\\\"2\"") != std::string::npos);
    CHECK(page.find("shape (2, 3) · masking: mask") != std::string::npos);
    // self-contained: nothing to fetch, and a policy that forbids fetching
    CHECK(page.find("src=") == std::string::npos);
    CHECK(page.find("href=") == std::string::npos);
    CHECK(page.find("default-src 'none'") != std::string::npos);
}

TEST_CASE("html view: leading dimensions by rank or by name, slice names, the scale above 1") {
    Tensor t3(Shape{2, 1, 2});
    t3.slice_data(1)[1] = 0.5f;
    const std::string p3 = attn::viz::html_view(t3.view(), {});
    CHECK(p3.find("\"lead\":[[\"head\",2,[0,1]]],\"names\":[\"head 0\",\"head 1\"]") != std::string::npos);
    CHECK(p3.find("\"codes\":\"AAAAgA==\",\"mask\":null") != std::string::npos);  // 0.5 -> 128
    CHECK(p3.find("\"q\":[\"0\"],\"k\":[\"0\",\"1\"]") != std::string::npos);       // indices without labels
    attn::viz::HtmlViewOptions named;
    named.slice_names = {"batch 0", "batch 1"};
    named.masked = [](std::size_t s, std::size_t, std::size_t k) { return s == 1 && k == 0; };  // per slice: cell 2
    const std::string pn = attn::viz::html_view(t3.view(), named);
    CHECK(pn.find("\"names\":[\"batch 0\",\"batch 1\"]") != std::string::npos);
    CHECK(pn.find("\"mask\":\"BA==\"") != std::string::npos);
    Tensor t4(Shape{2, 3, 1, 1});
    const std::string p4 = attn::viz::html_view(t4.view(), {});
    CHECK(p4.find("\"lead\":[[\"batch\",2,[0,1]],[\"head\",3,[0,1,2]]]") != std::string::npos);
    CHECK(p4.find("\"batch 1, head 2\"") != std::string::npos);
    Tensor t5(Shape{2, 1, 3, 1, 1});
    const std::string p5 = attn::viz::html_view(t5.view(), {});
    CHECK(p5.find("\"lead\":[[\"layer\",2,[0,1]],[\"batch\",1,[0]],[\"head\",3,[0,1,2]]]") != std::string::npos);
    CHECK(p5.find("\"layer 1, batch 0, head 2\"") != std::string::npos);
    attn::viz::HtmlViewOptions layers;
    layers.dim_names = {"layer", "head"};
    CHECK(attn::viz::html_view(t4.view(), layers).find("\"layer 1, head 2\"") != std::string::npos);
    // The index each position stands for (--head 2 of batch items 1 and 2): in the data and names.
    attn::viz::HtmlViewOptions picked;
    picked.dim_indices = {{1, 2}, {2, 0, 1}};
    const std::string pp = attn::viz::html_view(t4.view(), picked);
    CHECK(pp.find("\"lead\":[[\"batch\",2,[1,2]],[\"head\",3,[2,0,1]]]") != std::string::npos);
    CHECK(pp.find("\"batch 2, head 1\"") != std::string::npos);  // slice (1, 2)
    picked.dim_indices = {{1, 2}};
    CHECK_THROWS_AS(attn::viz::html_view(t4.view(), picked), attn::UsageError);  // one dimension's indices of two
    picked.dim_indices = {{1}, {0, 1, 2}};
    CHECK_THROWS_AS(attn::viz::html_view(t4.view(), picked), attn::UsageError);  // one index for two positions
    layers.dim_names = {"head", "layer"};
    CHECK_THROWS_AS(attn::viz::html_view(t4.view(), layers), attn::UsageError);
    layers.dim_names = {"head"};
    CHECK_THROWS_AS(attn::viz::html_view(t4.view(), layers), attn::UsageError);
    // values above 1: codes relative to the largest, which the page states as its scale
    attn::Matrix big(1, 2);
    big(0, 0) = 2.0f, big(0, 1) = 0.4f;
    const std::string pb = attn::viz::html_view(attn::view_of(big), {});
    CHECK(pb.find("\"scale\":2,") != std::string::npos);
    CHECK(pb.find("\"codes\":\"/zM=\"") != std::string::npos);
    CHECK_THROWS_AS(attn::viz::html_view(Tensor(Shape{4}).view(), {}), attn::UsageError);
    CHECK_THROWS_AS(attn::viz::html_view(Tensor(Shape{1, 1, 1, 1, 1, 2}).view(), {}), attn::UsageError);
}

TEST_CASE("html view: sentence B after the first [SEP] with tokens after it, or as given") {
    Tensor t(Shape{4, 4});
    attn::viz::HtmlViewOptions o;
    o.query_labels = o.key_labels = {"[CLS]", "a", "[SEP]", "b"};
    CHECK(attn::viz::html_view(t.view(), o).find("\"sentB\":3,") != std::string::npos);
    o.query_labels = o.key_labels = {"[CLS]", "a", "b", "[SEP]"};  // no tokens after it: no pair
    CHECK(attn::viz::html_view(t.view(), o).find("\"sentB\":0,") != std::string::npos);
    o.sentence_b = 2;
    CHECK(attn::viz::html_view(t.view(), o).find("\"sentB\":2,") != std::string::npos);
    // A caller that knows the real pair (attn model): no guess from a "[SEP]" label.
    o.query_labels = o.key_labels = {"[CLS]", "a", "[SEP]", "b"};
    o.sentence_b = 0, o.sentence_b_from_labels = false;
    CHECK(attn::viz::html_view(t.view(), o).find("\"sentB\":0,") != std::string::npos);
}
