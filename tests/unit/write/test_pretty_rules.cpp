// Pretty notation, wrapping and labels. Expected text: PyTorch 2.x's printing
// (torch.set_printoptions(precision=4), /usr/bin/python3) for the notation cases, written
// here as torch printed them; the wrapping and label layouts by hand from their rules.
#include <doctest/doctest.h>

#include "test_util.hpp"

#include <limits>
#include <string>
#include <vector>

#include "attn/io.hpp"
#include "attn/tensor.hpp"

using attn::Matrix;
using attn::io::Format;
using attn::io::Item;
using attn::io::OutputOptions;

namespace {


std::string pretty(const Matrix& m, std::size_t line_width = 0, int digits = -1) {
    OutputOptions o;
    o.format = Format::pretty;
    o.digits = digits;
    o.line_width = line_width;
    return attn::io::render({Item{"m", &m, {}, {}, {}, {}, {}}}, o);
}

}  // namespace

TEST_CASE("pretty notation: PyTorch's rule, per matrix") {
    // torch.tensor([10., 20., 30.]).softmax(0) -> tensor([2.0611e-09, 4.5398e-05, 9.9995e-01])
    CHECK(pretty(test_util::matrix_of({{2.0611e-09f, 4.5398e-05f, 9.9995e-01f}})) == "m (1x3):\n  2.0611e-09  4.5398e-05  9.9995e-01\n");
    // torch.tensor([1e30, 1.]) -> tensor([1.0000e+30, 1.0000e+00])
    CHECK(pretty(test_util::matrix_of({{1e30f, 1.0f}})) == "m (1x2):\n  1.0000e+30  1.0000e+00\n");
    // torch.tensor([[1e-5, 0.5], [2., 3.]]): one small value puts the whole matrix in scientific
    CHECK(pretty(test_util::matrix_of({{1e-5f, 0.5f}, {2.0f, 3.0f}})) ==
          "m (2x2):\n  1.0000e-05  5.0000e-01\n  2.0000e+00  3.0000e+00\n");
    // torch.tensor([1000., 1.5]) -> fixed (span 667); torch.tensor([1001., 1.]) -> scientific
    CHECK(pretty(test_util::matrix_of({{1000.0f, 1.5f}})) == "m (1x2):\n  1000.0000  1.5000\n");
    CHECK(pretty(test_util::matrix_of({{1001.0f, 1.0f}})) == "m (1x2):\n  1.0010e+03  1.0000e+00\n");
    // torch.tensor([1e8, 2e7]) -> fixed (max is not above 1e8); [2e8, 1e8] -> scientific
    CHECK(pretty(test_util::matrix_of({{1e8f, 2e7f}}), 0, 0) == "m (1x2):\n  100000000  20000000\n");
    CHECK(pretty(test_util::matrix_of({{2e8f, 1e8f}})) == "m (1x2):\n  2.0000e+08  1.0000e+08\n");
    // zeros and non-finite values do not count: torch.tensor([0., 1e9]) -> [0.0000e+00, 1.0000e+09]
    CHECK(pretty(test_util::matrix_of({{0.0f, 1e9f}})) == "m (1x2):\n  0.0000e+00  1.0000e+09\n");
    const float inf = std::numeric_limits<float>::infinity();
    CHECK(pretty(test_util::matrix_of({{-inf, 0.5f, 0.0f}})) == "m (1x3):\n  -inf  0.5000  0.0000\n");
    // --digits is torch's precision in both notations
    CHECK(pretty(test_util::matrix_of({{-1.19694f, 3e-6f}}), 0, 2) == "m (1x2):\n  -1.20e+00  3.00e-06\n");
    CHECK(pretty(test_util::matrix_of({{-1.19694f, 0.5f}}), 0, 4) == "m (1x2):\n  -1.1969  0.5000\n");
}

TEST_CASE("pretty notation: one notation for a whole tensor; each record field alone") {
    std::vector<float> v = {1.0f, 2.0f, 3.0f, 4.0f, 5e-5f, 6.0f, 7.0f, 8.0f};
    const attn::TensorView t = attn::contiguous_view(v.data(), attn::Shape({2, 2, 2}));
    OutputOptions o;
    o.format = Format::pretty;
    CHECK(attn::io::render({attn::io::tensor_item("t", t)}, o) ==
          "t [0] (2x2):\n  1.0000e+00  2.0000e+00\n  3.0000e+00  4.0000e+00\n\n"
          "t [1] (2x2):\n  5.0000e-05  6.0000e+00\n  7.0000e+00  8.0000e+00\n");
    Item rec;
    rec.name = "r";
    rec.fields = {{"tiny", 2.5e-7}, {"half", 0.5}, {"count", 3.0}};
    CHECK(attn::io::render({rec}, o) == "r:\n  tiny   2.5000e-07\n  half   0.5000\n  count  3\n");
}

TEST_CASE("pretty wrapping: column blocks that fit the line width") {
    const Matrix m = test_util::matrix_of({{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}});
    // columns are 6 wide (7 for 10.0000) with 2 between, after a 2-space indent: 24 holds 3
    CHECK(pretty(m, 24) == "m (2x5):\n"
                           "  columns 0\u20132:\n"
                           "  1.0000  2.0000  3.0000\n"
                           "  6.0000  7.0000  8.0000\n"
                           "  columns 3\u20134:\n"
                           "  4.0000   5.0000\n"
                           "  9.0000  10.0000\n");
    CHECK(pretty(m, 23) == pretty(m, 16));  // 23 holds only two columns, as 16 does
    CHECK(pretty(m, 16).find("  columns 2\u20133:\n  3.0000  4.0000\n  8.0000  9.0000\n  column 4:\n   5.0000\n  10.0000\n") !=
          std::string::npos);
    CHECK(pretty(m, 1).find("  column 0:\n  1.0000\n  6.0000\n  column 1:\n") != std::string::npos);  // one column at least
    CHECK(pretty(m, 0) == pretty(m, 1000));                                              // 0: never wrap
    CHECK(pretty(m, 0) == "m (2x5):\n  1.0000  2.0000  3.0000  4.0000   5.0000\n  6.0000  7.0000  8.0000  9.0000  10.0000\n");
    // labels: row labels repeat in every block, column labels head their block
    Item it{"w", &m, {"a", "bb"}, {"p", "q", "r", "s", "t"}, {}, {}, {}};
    OutputOptions o;
    o.format = Format::pretty;
    o.line_width = 28;
    CHECK(attn::io::render({it}, o) == "w (2x5):\n"
                                       "  columns 0\u20132:\n"
                                       "           p       q       r\n"
                                       "  a   1.0000  2.0000  3.0000\n"
                                       "  bb  6.0000  7.0000  8.0000\n"
                                       "  columns 3\u20134:\n"
                                       "           s        t\n"
                                       "  a   4.0000   5.0000\n"
                                       "  bb  9.0000  10.0000\n");
    // csv never wraps
    o.format = Format::csv;
    CHECK(attn::io::render({Item{"m", &m, {}, {}, {}, {}, {}}}, o) == "1,2,3,4,5\n6,7,8,9,10\n");
}

TEST_CASE("labels in csv, tsv and json") {
    const Matrix m = test_util::matrix_of({{0.25f, 0.75f}, {1.0f, 0.0f}});
    OutputOptions o;
    o.format = Format::csv;
    Item both{"weights", &m, {"the", "cat"}, {"le", "chat"}, {}, {}, {}};
    CHECK(attn::io::render({both}, o) == ",le,chat\nthe,0.25,0.75\ncat,1,0\n");
    o.format = Format::tsv;
    CHECK(attn::io::render({both}, o) == "\tle\tchat\nthe\t0.25\t0.75\ncat\t1\t0\n");
    // only row labels (a context matrix): a first column, no header row
    Item rows_only{"context", &m, {"the", "cat"}, {}, {}, {}, {}};
    o.format = Format::csv;
    CHECK(attn::io::render({rows_only}, o) == "the,0.25,0.75\ncat,1,0\n");
    // labels of the wrong count are not used (as in pretty)
    Item wrong{"weights", &m, {"x"}, {"a", "b", "c"}, {}, {}, {}};
    CHECK(attn::io::render({wrong}, o) == "0.25,0.75\n1,0\n");
    // quoting (csv) and escaping (tsv)
    Item odd{"weights", &m, {"a,b", "say \"hi\""}, {"t\tab", "back\\slash"}, {}, {}, {}};
    CHECK(attn::io::render({odd}, o) == ",t\tab,back\\slash\n\"a,b\",0.25,0.75\n\"say \"\"hi\"\"\",1,0\n");
    o.format = Format::tsv;
    CHECK(attn::io::render({odd}, o) == "\tt\\tab\tback\\\\slash\na,b\t0.25\t0.75\nsay \"hi\"\t1\t0\n");
    // in blocks: inside each block, after its header
    o.format = Format::csv;
    CHECK(attn::io::render({both, rows_only}, o) ==
          "# weights 2x2\n,le,chat\nthe,0.25,0.75\ncat,1,0\n\n# context 2x2\nthe,0.25,0.75\ncat,1,0\n\n");
    // json: "labels" and "key_labels" after the items, only when given
    o.format = Format::json;
    CHECK(attn::io::render({Item{"weights", &m, {}, {}, {}, {}, {}}}, o) ==
          "{\n  \"weights\": [\n    [0.25, 0.75],\n    [1, 0]\n  ]\n}\n");
    o.labels = {"the", "cat"};
    o.key_labels = {"le", "\"chat\""};
    CHECK(attn::io::render({Item{"weights", &m, {}, {}, {}, {}, {}}}, o) ==
          "{\n  \"weights\": [\n    [0.25, 0.75],\n    [1, 0]\n  ],\n"
          "  \"labels\": [\"the\", \"cat\"],\n  \"key_labels\": [\"le\", \"\\\"chat\\\"\"]\n}\n");
}
