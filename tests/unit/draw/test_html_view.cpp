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
    CHECK(page.find("\"w\":[[0.25,0.75,0],[null,null,null]],\"m\":[[0,0,1],[1,1,1]]") != std::string::npos);
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

TEST_CASE("html view: (H, Tq, Tk) and (B, H, Tq, Tk) name every head; other ranks are refused") {
    Tensor t3(Shape{2, 1, 2});
    t3.slice_data(1)[1] = 0.5f;
    const std::string p3 = attn::viz::html_view(t3.view(), {});
    CHECK(p3.find("{\"name\":\"head 0\",\"w\":[[0,0]],\"m\":null},{\"name\":\"head 1\",\"w\":[[0,0.5]],\"m\":null}") !=
          std::string::npos);
    attn::viz::HtmlViewOptions named;
    named.slice_names = {"batch 0", "batch 1"};
    named.masked = [](std::size_t s, std::size_t, std::size_t k) { return s == 1 && k == 0; };  // per slice
    const std::string pn = attn::viz::html_view(t3.view(), named);
    CHECK(pn.find("{\"name\":\"batch 0\",\"w\":[[0,0]],\"m\":[[0,0]]},{\"name\":\"batch 1\",\"w\":[[0,0.5]],\"m\":[[1,0]]}") !=
          std::string::npos);
    CHECK(p3.find("\"q\":[\"0\"],\"k\":[\"0\",\"1\"]") != std::string::npos);  // indices without labels
    Tensor t4(Shape{2, 3, 1, 1});
    const std::string p4 = attn::viz::html_view(t4.view(), {});
    CHECK(test_util::count(p4, "{\"name\":\"batch ") == 6);
    CHECK(p4.find("\"batch 1, head 2\"") != std::string::npos);
    CHECK_THROWS_AS(attn::viz::html_view(Tensor(Shape{4}).view(), {}), attn::UsageError);
    CHECK_THROWS_AS(attn::viz::html_view(Tensor(Shape{1, 1, 1, 1, 2}).view(), {}), attn::UsageError);
}
