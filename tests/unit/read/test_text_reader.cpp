// Text reader: every accepted form, and every error with its line and column. Expected
// values are the literals written in the inputs (or in data/fixtures/make_fixtures.py).
#include <doctest/doctest.h>

#include "test_util.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"

using attn::InputError;
using attn::Matrix;
using attn::io::Finite;

namespace {

Matrix text(std::string_view s, Finite f = Finite::required) { return attn::io::parse_text(s, "t.txt", f); }

using test_util::check_matrix;

std::string error_of(std::string_view s, Finite f = Finite::required) {
    try {
        text(s, f);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

constexpr float inf = std::numeric_limits<float>::infinity();

}  // namespace

TEST_CASE("text: rows of numbers with every separator") {
    const std::vector<std::vector<float>> m = {{0.43f, 0.15f, 0.89f}, {0.55f, -0.87f, 6.6e-3f}};
    check_matrix(text("0.43 0.15 0.89\n0.55 -0.87 6.6e-3\n"), m);
    check_matrix(text("0.43\t0.15\t0.89\n0.55\t-0.87\t6.6e-3"), m);          // tabs, no final newline
    check_matrix(text("0.43,0.15,0.89\n0.55,-0.87,6.6e-3\n"), m);            // csv
    check_matrix(text("0.43; 0.15; 0.89\n0.55 ;-0.87 ;6.6e-3\n"), m);        // semicolons
    check_matrix(text("  0.43 ,  0.15\t, 0.89,\n0.55,-0.87,6.6e-3,\n"), m);  // mixed, trailing separator
    check_matrix(text("0.43 0.15 0.89\r\n0.55 -0.87 6.6e-3\r\n"), m);        // CRLF
    check_matrix(text("\xEF\xBB\xBF" "0.43 0.15 0.89\n0.55 -0.87 6.6e-3\n"), m); // UTF-8 BOM
}

TEST_CASE("text: comments and blank lines") {
    check_matrix(text("# a header\n\n1 2 # trailing comment\n   \n# between\n3 4\n\n# end\n"), {{1, 2}, {3, 4}});
    // attn's own csv block header before the data is just a comment
    check_matrix(text("# weights 2x2\n1,2\n3,4\n\n"), {{1, 2}, {3, 4}});
}

TEST_CASE("text: a single line is a 1xn row") {
    check_matrix(text("10 20 30"), {{10, 20, 30}});
    check_matrix(text("[10, 20, 30]"), {{10, 20, 30}});
    check_matrix(text("tensor([0.1000, -0.2000, 0.3000])"), {{0.1f, -0.2f, 0.3f}});
    check_matrix(text("5"), {{5}});
}

TEST_CASE("text: number spellings") {
    check_matrix(text("+1.5 .5 5. 1.e+00 -0. 2E3 1e-3"), {{1.5f, 0.5f, 5.0f, 1.0f, -0.0f, 2000.0f, 0.001f}});
    // below the float range: underflows to zero like strtof, not an error
    check_matrix(text("1e-50 -1e-60"), {{0.0f, -0.0f}});
    // largest float32 still fits
    check_matrix(text("3.4028234e38"), {{std::numeric_limits<float>::max()}});
    // U+2212 MINUS SIGN, as copied from typeset textbooks and PDFs, is a minus
    check_matrix(text("\u22120.5 1e\u22122 \u22121"), {{-0.5f, 0.01f, -1.0f}});
    check_matrix(text("[[\u22120.25, 2]]"), {{-0.25f, 2.0f}});
    check_matrix(text("\u2212inf 1", Finite::allow_neg_inf), {{-std::numeric_limits<float>::infinity(), 1.0f}});
}

TEST_CASE("text: Python's True and False, as a bool tensor prints, are 1 and 0") {
    check_matrix(text("tensor([[ True, False,  True],\n        [False,  True, False]])"), {{1, 0, 1}, {0, 1, 0}});
    check_matrix(text("array([[ True, False]])"), {{1, 0}});
    check_matrix(text("True 0.5"), {{1, 0.5f}});
    CHECK(error_of("true 1") == "t.txt:1:1: expected a number, found 'true'");  // Python's spelling only
    CHECK(error_of("1 TRUE") == "t.txt:1:3: expected a number, found 'TRUE'");
}

TEST_CASE("text: -inf where allowed, in every spelling") {
    const Matrix m = text("-inf -Inf -INFINITY -Infinity 0", Finite::allow_neg_inf);
    REQUIRE(m.cols() == 5);
    for (int c = 0; c < 4; ++c) CHECK(m(0, c) == -inf);
    CHECK(m(0, 4) == 0.0f);
    check_matrix(text("[[-inf, 1.0], [2.0, -inf]]", Finite::allow_neg_inf), {{-inf, 1}, {2, -inf}});
}

TEST_CASE("text: bracketed matrix over several lines with comments inside") {
    check_matrix(text("[[0.43, 0.15, 0.89],  # Your\n"
                      " [0.55, 0.87, 0.66],  # journey\n"
                      " # a full-line comment\n"
                      " [0.57, 0.85, 0.64]]  # starts\n"),
                 {{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}, {0.57f, 0.85f, 0.64f}});
    check_matrix(text("[[1, 2,], [3, 4,],]"), {{1, 2}, {3, 4}});  // Python's trailing commas
    check_matrix(text("[[1 2]\n [3 4]]"), {{1, 2}, {3, 4}});      // numpy print: no commas
}

TEST_CASE("text: wrapped tensor(...) and array(...) with keyword arguments") {
    check_matrix(text("tensor([[1., 2.],\n        [3., 4.]], requires_grad=True)"), {{1, 2}, {3, 4}});
    check_matrix(text("tensor([[1., 2.]], grad_fn=<SoftmaxBackward0>)"), {{1, 2}});
    check_matrix(text("tensor([[1., 2.]], device='cuda:0', dtype=torch.float16)"), {{1, 2}});
    check_matrix(text("array([[1, 2], [3, 4]], dtype=float32)"), {{1, 2}, {3, 4}});
    check_matrix(text("np.array([[1, 2]])"), {{1, 2}});
    check_matrix(text("torch.tensor([[1, 2]])\n# trailing comment\n"), {{1, 2}});
    check_matrix(text("tensor([[1, 2]], names=('a', 'b)'))"), {{1, 2}});  // ')' inside quotes
}

TEST_CASE("text: a printed nn.Parameter ('Parameter containing:' then the tensor)") {
    // print(torch.nn.Parameter(torch.tensor([[1., 2.], [3., 4.]]))) in PyTorch 1.13
    check_matrix(text("Parameter containing:\ntensor([[1., 2.],\n        [3., 4.]], requires_grad=True)"),
                 {{1, 2}, {3, 4}});
    // the words alone are not a matrix, and errors keep their true line and column
    CHECK_THROWS_WITH_AS(text("Parameter containing:\n"), "t.txt: no numbers found (empty matrix)", attn::InputError);
    CHECK_THROWS_WITH_AS(text("Parameter containing:\ntensor([[1., x]])"), "t.txt:2:14: expected a number, found 'x'",
                         attn::InputError);
}

TEST_CASE("text: pasted output of torch and numpy (fixtures)") {
    const std::string dir = "data/fixtures/";
    check_matrix(attn::io::read_matrix(dir + "pasted_torch_grad.txt"),
                 {{0.86f, 0.30f, 1.78f}, {1.10f, 1.74f, 1.32f}, {1.14f, 1.70f, 1.28f}});
    check_matrix(attn::io::read_matrix(dir + "pasted_torch_float64.txt"), {{1e-8f, 2.5f}, {300.0f, -4.0f}});
    const std::vector<std::vector<float>> np = {{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}};
    check_matrix(attn::io::read_matrix(dir + "pasted_numpy_repr.txt"), np);
    check_matrix(attn::io::read_matrix(dir + "pasted_numpy_print.txt"), np);
    check_matrix(attn::io::read_matrix(dir + "numpy_savetxt.txt"), np);
    CHECK_THROWS_WITH_AS(attn::io::read_matrix(dir + "pasted_torch_summarised.txt"),
                         doctest::Contains("data/fixtures/pasted_torch_summarised.txt:1:47: '...' marks a summarised print"),
                         InputError);
}

TEST_CASE("text: errors name the line and column") {
    CHECK(error_of("1 2 3\n4 abc 6\n") == "t.txt:2:3: expected a number, found 'abc'");
    CHECK(error_of("1 2 3\n4 5 6\n\n7 8\n") == "t.txt:4: row has 2 values, expected 3");
    CHECK(error_of("1 2\n3 4 5\n") == "t.txt:2: row has 3 values, expected 2");
    CHECK(error_of("1 2\n3\n") == "t.txt:2: row has 1 value, expected 2");
    CHECK(error_of("1.5.2") == "t.txt:1:1: expected a number, found '1.5.2'");
    CHECK(error_of("1,,2") == "t.txt:1:3: expected a number, found ','");
    CHECK(error_of(",1,2") == "t.txt:1:1: expected a number, found ','");
    CHECK(error_of("0x10") == "t.txt:1:1: expected a number, found '0x10'");
    CHECK(error_of("1 \x01\xff") == "t.txt:1:3: expected a number, found '\\x01\\xff'");
    // valid UTF-8 is shown as written (a word pasted in another script), invalid bytes escaped
    CHECK(error_of("1 café\n") == "t.txt:1:3: expected a number, found 'café'");
    CHECK(error_of("1 \xC3(\n") == "t.txt:1:3: expected a number, found '\\xc3('");
    // by runtime/utf8.hpp's rule: an overlong form and a surrogate are not valid UTF-8, and a C1
    // control character (U+0085, valid UTF-8) would reach the terminal: all escaped
    CHECK(error_of("1 \xE0\x80\x80") == "t.txt:1:3: expected a number, found '\\xe0\\x80\\x80'");
    CHECK(error_of("1 \xED\xA0\x80") == "t.txt:1:3: expected a number, found '\\xed\\xa0\\x80'");
    CHECK(error_of("1 \xC2\x85") == "t.txt:1:3: expected a number, found '\\xc2\\x85'");
    CHECK(error_of("") == "t.txt: no numbers found (empty matrix)");
    CHECK(error_of("# only a comment\n\n") == "t.txt: no numbers found (empty matrix)");
}

TEST_CASE("text: non-finite values are rejected with their position") {
    CHECK(error_of("1 2\n3 nan\n") == "t.txt:2:3: non-finite value 'nan' is not allowed here");
    CHECK(error_of("1 NaN") == "t.txt:1:3: non-finite value 'NaN' is not allowed here");
    CHECK(error_of("inf 1") == "t.txt:1:1: non-finite value 'inf' is not allowed here");
    CHECK(error_of("1 -inf") == "t.txt:1:3: non-finite value '-inf' is not allowed here");
    CHECK(error_of("[[1, Infinity]]") == "t.txt:1:6: non-finite value 'Infinity' is not allowed here");
    CHECK(error_of("1 inf", Finite::allow_neg_inf) == "t.txt:1:3: non-finite value 'inf' is not allowed here (only -inf is)");
    CHECK(error_of("nan", Finite::allow_neg_inf) == "t.txt:1:1: non-finite value 'nan' is not allowed here (only -inf is)");
    CHECK(error_of("1\n 1e39") == "t.txt:2:2: value '1e39' is out of float32 range");
    CHECK(error_of("-1e400") == "t.txt:1:1: value '-1e400' is out of float32 range");
}

TEST_CASE("text: bracketed-form errors") {
    CHECK(error_of("[[1, 2],\n [3]]") == "t.txt:2: row has 1 value, expected 2");
    CHECK(error_of("[[1, 2], [3, 4]") == "t.txt:1:16: expected ']', found end of input");
    CHECK(error_of("[[1, 2], 3]") == "t.txt:1:10: expected '[', found '3'");
    CHECK(error_of("[1, [2]]") == "t.txt:1:5: expected a number, found '['");
    CHECK(error_of("[[[1, 2]], [[3, 4]]]") == "t.txt: expected a matrix, got shape (2, 1, 2)");
    CHECK(error_of("[[]]") == "t.txt:1:2: '[]' holds no numbers (an empty tensor or row)");
    CHECK(error_of("[]") == "t.txt:1:1: '[]' holds no numbers (an empty tensor or row)");
    // print(torch.empty(0, 3)), NumPy's np.empty((0, 3), np.float32)
    CHECK(error_of("tensor([], size=(0, 3))") == "t.txt:1:8: '[]' holds no numbers (an empty tensor or row)");
    CHECK(error_of("array([], shape=(0, 3), dtype=float32)") == "t.txt:1:7: '[]' holds no numbers (an empty tensor or row)");
    // print(x.shape): the dimensions, not values (any name ending in .Size)
    CHECK(error_of("torch.Size([2, 3])") == "t.txt:1:1: torch.Size(...) is a tensor's shape, not its values: print the tensor itself");
    CHECK(error_of("Size([2])") == "t.txt:1:1: Size(...) is a tensor's shape, not its values: print the tensor itself");
    CHECK(error_of("[[1, x]]") == "t.txt:1:6: expected a number, found 'x'");
    CHECK(error_of("tensor([[1, 2]]") == "t.txt:1:16: expected ')' or ',', found end of input");
    CHECK(error_of("tensor([[1, 2]], dtype=torch.float32") == "t.txt:1:37: expected ')', found end of input");
    CHECK(error_of("tensor(5.)") == "t.txt:1:8: expected '[', found '5.'");
    CHECK(error_of("[[1, 2]] 7") == "t.txt:1:10: expected end of input after the matrix, found '7'");
}

TEST_CASE("text: summarised prints are rejected: the data is not there") {
    const std::string msg = error_of("tensor([[ 0.1,  0.2,  ...,  0.9],\n        [ 1.0,  1.1,  ...,  1.9]])");
    CHECK(msg.rfind("t.txt:1:23: '...' marks a summarised print: the data is not there", 0) == 0);
    CHECK(error_of("[[0.1 0.2 ... 0.9]\n ...\n [1 2 ... 3]]").rfind("t.txt:1:11: '...'", 0) == 0);
    CHECK(error_of("1 2 ...\n").rfind("t.txt:1:5: '...'", 0) == 0);
    CHECK(error_of("1 2 \xE2\x80\xA6\n").rfind("t.txt:1:5: '...'", 0) == 0);  // Unicode ellipsis
}

TEST_CASE("text: a second matrix is an error, not a silent concatenation") {
    // attn's own csv output of two matrices
    CHECK(error_of("# scores 2x2\n1,2\n3,4\n\n# weights 2x2\n0.5,0.5\n0.5,0.5\n\n") ==
          "t.txt:5:1: a second matrix starts here; attn reads one matrix per input");
    CHECK(error_of("tensor([[1, 2]])\ntensor([[3, 4]])\n") ==
          "t.txt:2:1: a second matrix starts here; attn reads one matrix per input");
    CHECK(error_of("[[1, 2]]\n[[3, 4]]") == "t.txt:2:1: a second matrix starts here; attn reads one matrix per input");
    // an ordinary comment after data is still only a comment
    check_matrix(text("1 2\n# note: see 2x2 above\n3 4\n"), {{1, 2}, {3, 4}});
}

TEST_CASE("text: attn's own json and pretty output of one matrix read back") {
    // "Output of attn must be valid input of attn": --format json of one matrix ...
    check_matrix(text("{\n  \"weights\": [\n    [0.25, 0.75],\n    [1, 0]\n  ]\n}\n"), {{0.25f, 0.75f}, {1, 0}});
    check_matrix(text("{\"softmax\": [[1, -2.5e-3]]}"), {{1, -2.5e-3f}});
    // ... and --format pretty (without labels): the "NAME (RxC):" header is checked, not data
    check_matrix(text("context (2x3):\n   1.0000  -2.0000  3.0000\n   0.0010  -inf  -0.5000\n", Finite::allow_neg_inf),
                 {{1, -2, 3}, {0.001f, -std::numeric_limits<float>::infinity(), -0.5f}});
    CHECK(error_of("weights (3x2):\n  0.5  0.5\n  1.0  0.0\n") == "t.txt:1:1: the header says 3x2 but the matrix is 2x2");
    // several items are several matrices; json null (a non-finite value) is not a number
    CHECK(error_of("{\n  \"weights\": [[1]],\n  \"context\": [[2]]\n}\n") ==
          "t.txt:3:3: a second matrix starts here; attn reads one matrix per input");
    CHECK(error_of("weights (1x1):\n  1.0000\n\ncontext (1x1):\n  2.0000\n") ==
          "t.txt:4:1: a second matrix starts here; attn reads one matrix per input");
    CHECK(error_of("{\"w\": [[null, 1]]}") ==
          "t.txt:1:9: found 'null', json's stand-in for NaN or infinity (read such values from csv, tsv or npy)");
    // a json of one record alone reads as its csv (a column of its numbers); other members are no tensor
    check_matrix(text("{\"variance\": {\"d_k\": 2, \"scale\": 0.5}}"), {{2}, {0.5f}});
    CHECK(error_of("{\"seed\": 3}") == "t.txt:1:10: \"seed\" is not a tensor (a nested list of numbers)");
    CHECK(error_of("{\"variance\": {\"d_k\": 2}, \"w\": [[1]]}") ==
          "t.txt:1:14: \"variance\" is not a tensor (a nested list of numbers)");
    CHECK(error_of("{\"w\": [[1]]") == "t.txt:1:12: expected '}', found end of input");
}

TEST_CASE("text: parse_matrix recognises npy by content, not by name") {
    CHECK_THROWS_WITH_AS(attn::io::parse_matrix("\x93NUMPX\x01\x00", "x.txt"), "x.txt: not a .npy file (bad magic)",
                         InputError);
    check_matrix(attn::io::parse_matrix("1 2\n", "x.npy"), {{1, 2}});
}

TEST_CASE("text: read_file and read_labels") {
    CHECK_THROWS_WITH_AS(attn::io::read_file("data/fixtures/does-not-exist.txt"),
                         "data/fixtures/does-not-exist.txt: No such file or directory", InputError);
    CHECK_THROWS_WITH_AS(attn::io::read_file("data/fixtures"), "data/fixtures: is a directory", InputError);
    CHECK_THROWS_WITH_AS(attn::io::read_matrix("data/fixtures/does-not-exist.txt"),
                         "data/fixtures/does-not-exist.txt: No such file or directory", InputError);
}
