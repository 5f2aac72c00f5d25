// attn's own output read back: labelled csv/tsv (a header row of column labels, a first field
// of row labels, or both) reads as the numbers written in it, and one named result of several
// is selected. Expected values are the literals written in the inputs; the round trips through
// the printer use labels chosen to hit every quoting rule.
#include <doctest/doctest.h>

#include "test_util.hpp"

#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "read/text_reader.hpp"

using attn::InputError;
using attn::Matrix;
using attn::Tensor;
using attn::io::Finite;
using test_util::check_matrix;

namespace {

Matrix text(std::string_view s) { return attn::io::parse_text(s, "t.txt", Finite::any); }

std::string error_of(std::string_view s) {
    try {
        text(s);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

std::string selected(std::string_view s, const std::string& name) {
    return attn::io::detail::TextReader(s, "t.txt", Finite::any).only_result(name);
}

std::string selection_error(std::string_view s, const std::string& name) {
    try {
        selected(s, name);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("labelled csv and tsv: both labels, row labels only, column labels only") {
    const std::vector<std::vector<float>> m = {{1.5f, -2.0f, 0.25f}, {3.0f, 4.0f, -5e-3f}};
    check_matrix(text(",a,b,c\nx,1.5,-2,0.25\ny,3,4,-5e-3\n"), m);
    check_matrix(text("\ta\tb\tc\nx\t1.5\t-2\t0.25\ny\t3\t4\t-5e-3\n"), m);
    check_matrix(text("x,1.5,-2,0.25\ny,3,4,-5e-3\n"), m);
    check_matrix(text("x\t1.5\t-2\t0.25\ny\t3\t4\t-5e-3\n"), m);
    check_matrix(text("a,b,c\n1.5,-2,0.25\n3,4,-5e-3\n"), m);
    check_matrix(text("a\tb\tc\n1.5\t-2\t0.25\n3\t4\t-5e-3\n"), m);
    // one column, one row
    check_matrix(text(",only\nx,7\n"), {{7.0f}});
    check_matrix(text("x,7\n"), {{7.0f}});
    check_matrix(text("only\n7\n8\n"), {{7.0f}, {8.0f}});
    // CRLF line ends, a byte-order mark, non-finite values as csv writes them
    check_matrix(text("\xEF\xBB\xBF,a,b\r\nx,1,2\r\n"), {{1.0f, 2.0f}});
    const Matrix nf = text(",a,b\nx,-inf,nan\n");
    CHECK(std::isinf(nf(0, 0)));
    CHECK(std::isnan(nf(0, 1)));
}

TEST_CASE("labelled csv: labels are any text, quoted as RFC 4180; bare numbers only beside an empty corner") {
    check_matrix(text(",\"a,b\",\"say \"\"hi\"\"\",# c\n\"x,y\",1,2,3\n#z,4,5,6\n"), {{1, 2, 3}, {4, 5, 6}});
    check_matrix(text(",\"1\",\"2\"\nfirst,1,2\n\"2\",3,4\n"), {{1, 2}, {3, 4}});  // numbers as labels, quoted as attn writes them
    // The empty corner of both labels allows bare numbers (pandas' to_csv writes its index so)
    check_matrix(text(",1,2\nfirst,1,2\n2,3,4\n"), {{1, 2}, {3, 4}});
    check_matrix(text(",a,b\n0,1,2\n1,3,4\n"), {{1, 2}, {3, 4}});
    // Else they may be a plain file's numbers beside a mistyped one: not labels (a column was lost).
    CHECK_THROWS_AS(text("4,5,6\nabc,1,2\n7,8,9\n"), attn::InputError);
    CHECK_THROWS_AS(text("x,1,2\n3,4,5\n"), attn::InputError);
    CHECK_THROWS_AS(text("2nd,5,6\n"), attn::InputError);  // begins as a number: no sign of labels alone
    check_matrix(text("\t\"a\t\\1\n\"x\t5\t6\n"), {{5, 6}});  // tsv does not quote (a number label: escaped, as attn writes it)
    check_matrix(text(",the cat,a dog\nNew York,1,2\n"), {{1, 2}});
}

TEST_CASE("labelled csv: what the printer writes with labels reads back as the matrix") {
    const Matrix m = test_util::matrix_of({{0.125f, -1e-8f, 3e10f}, {-0.0f, 7.0f, 1.0f / 3.0f}});
    const std::vector<std::vector<std::string>> label_sets = {
        {"The", "hiking", "trail"}, {"a,b", "q\"uote", "##ing"}, {"tab\there", "back\\slash", "ünï"}, {"1", "two", "3"}};
    for (const auto& format : {attn::io::Format::csv, attn::io::Format::tsv})
        for (const auto& labels : label_sets)
            for (int which = 1; which <= 3; ++which) {
                attn::io::Item it{"weights", &m, {}, {}, {}, {}, {}};
                if (which & 1) it.row_labels = {labels[0], labels[1]};
                if (which & 2) it.col_labels = labels;
                attn::io::OutputOptions o;
                o.format = format;
                const std::string written = attn::io::render({it}, o);
                INFO(written);
                const Matrix back = text(written);
                REQUIRE(back.rows() == 2);
                REQUIRE(back.cols() == 3);
                for (std::size_t r = 0; r < 2; ++r)
                    for (std::size_t c = 0; c < 3; ++c) CHECK(back(r, c) == m(r, c));
            }
}

TEST_CASE("labelled csv: slices of a tensor under their headings, each with its header row") {
    const Tensor t = attn::io::parse_text_tensor(
        "# w [0] 2x2\n,k1,k2\nq1,1,2\nq2,3,4\n\n# w [1] 2x2\n,k1,k2\nq1,5,6\nq2,7,8\n\n", "t.txt", Finite::any);
    REQUIRE(t.shape().text() == "(2, 2, 2)");
    for (std::size_t s = 0; s < 2; ++s)
        for (std::size_t r = 0; r < 2; ++r)
            for (std::size_t c = 0; c < 2; ++c) CHECK(t.slice(s)(r, c) == float(4 * s + 2 * r + c + 1));
}

TEST_CASE("labelled csv: nothing looser than what attn writes; plain text reads as before") {
    // errors of plain text stay the same errors
    CHECK(error_of("1 2\n3\n") == "t.txt:2: row has 1 value, expected 2");
    CHECK(error_of(",1,2") == "t.txt:1:1: expected a number, found ','");
    CHECK(error_of(",1,2\n,3,4\n") == "t.txt:1:1: expected a number, found ','");  // labels all numbers
    CHECK(error_of("a b c\n1 2 3\n") == "t.txt:1:1: expected a number, found 'a'");  // spaces are not separators
    CHECK(error_of("a, b\n1, 2\n") == "t.txt:1:1: expected a number, found 'a'");
    CHECK(error_of("x,1,2\ny,3\n") == "t.txt:1:1: expected a number, found 'x'");  // ragged
    // Labelled first lines and a mistake after them: the mistake is named where it is (it was 1:1,
    // the header row's first comma): a second header row, a bad cell, rows too long and too short
    CHECK(error_of(",a,b\nx,1,2\n,a,b\ny,3,4\n") == "t.txt:3:2: expected a number, found 'a'");
    CHECK(error_of(",a,b\nq,1,2\nr,3,abc\n") == "t.txt:3:5: expected a number, found 'abc'");
    CHECK(error_of(",a,b\nq,1,2\nr,3,4,5\n") == "t.txt:3: row has 3 values, expected 2");
    CHECK(error_of("q,1,2\nr,3,4\ns,5\n") == "t.txt:3: row has 1 value, expected 2");
    CHECK(error_of("x,1,y\n") == "t.txt:1:1: expected a number, found 'x'");  // a label in the middle
    CHECK(error_of("x,1;2\n") == "t.txt:1:1: expected a number, found 'x'");
    CHECK(error_of("\"x,1,2\n") == "t.txt:1:1: expected a number, found '\"x'");  // a quote left open
    // labels are taken for labels only when one on the first two lines is not a number
    CHECK(error_of("1,5\n2,6\nthree,7\n") == "t.txt:3:1: expected a number, found 'three'");
    // slices of one result labelled differently
    CHECK(error_of("# w [0] 1x2\nq,1,2\n\n# w [1] 1x2\n3,4\n") == "t.txt:2:1: expected a number, found 'q'");
    // a number that is wrong is reported where it is, in the file as it is
    CHECK(error_of(",a,b\nx,1,2e\n") == "t.txt:2:5: expected a number, found '2e'");
    // plain numbers with a first column that could be labels: read as numbers, as before
    check_matrix(text("1,2,3\n4,5,6\n"), {{1, 2, 3}, {4, 5, 6}});
    check_matrix(text("\t1\t2\n\t3\t4\n"), {{1, 2}, {3, 4}});
}

TEST_CASE("named results: json members and csv headings") {
    const std::string json =
        "{\n  \"weights\": [[1, 0], [0.5, 0.5]],\n  \"variance\": {\"d_k\": 2},\n  \"context\": [[3, 4]],\n"
        "  \"labels\": [\"a\", \"b\"]\n}\n";
    const std::string w = selected(json, "weights");
    CHECK(w.size() == json.size());
    check_matrix(attn::io::parse_text(w, "t.txt"), {{1, 0}, {0.5f, 0.5f}});
    check_matrix(attn::io::parse_text(selected(json, "context"), "t.txt"), {{3, 4}});
    CHECK(selection_error(json, "nope") == "t.txt: no result 'nope' (it holds: weights, variance, context)");
    check_matrix(attn::io::parse_text(selected(json, "variance"), "t.txt"), {{2}});  // a record: a column, as its csv
    CHECK(selection_error("{\"v\": [{\"a\": 1}, {\"b\": 2}]}", "v") == "t.txt:v: records with other fields than the first's");
    // A record's errors name the file, the result and the field (from a review: they named neither)
    CHECK(selection_error("{\"v\": [{\"a\": 1e39}]}", "v") == "t.txt:v: \"a\" is 1e+39: out of float32 range");
    CHECK(selection_error("{\"v\": {\"a\": 1, \"a\": 2}}", "v") == "t.txt:v: \"a\" twice in a record");
    CHECK(selection_error("{\"v\": {}}", "v") == "t.txt:v: not a tensor (a nested list of numbers) nor records");
    CHECK(selection_error("{\"v\": {\"a\": 1,}}", "v").starts_with("t.txt:v: its value: "));
    CHECK(selection_error(json, "labels") == "t.txt:labels: not a tensor (a nested list of numbers)");
    CHECK(selection_error("{\"a\": [1, 2], \"b\" [3]}", "a") == "t.txt:1:19: expected ':', found '['");

    const std::string csv = "# weights [0] 1x2\n,k,l\nq,1,2\n\n# weights [1] 1x2\n,k,l\nq,3,4\n\n"
                            "# draw 0 1x1\n5\n\n# variance\nd_k,2\nscale,0.5\n\n";
    const Tensor t = attn::io::parse_text_tensor(selected(csv, "weights"), "t.txt", Finite::any);
    REQUIRE(t.shape().text() == "(2, 1, 2)");
    CHECK(t.slice(1)(0, 1) == 4.0f);
    check_matrix(attn::io::parse_text(selected(csv, "draw 0"), "t.txt"), {{5}});
    check_matrix(attn::io::parse_text(selected(csv, "variance"), "t.txt"), {{2}, {0.5f}});
    CHECK(selection_error(csv, "draw") == "t.txt: no result 'draw' (it holds: weights, draw 0, variance)");
    CHECK(selection_error("1,2\n3,4\n", "weights") ==
          "t.txt: no result 'weights' (it holds one result without a name: read it as t.txt)");
    // positions are those of the file
    CHECK_THROWS_WITH_AS(attn::io::parse_text(selected("# a 1x2\n1,2\n# b 1x2\n3,x\n", "b"), "t.txt"),
                         "t.txt:4:3: expected a number, found 'x'", InputError);
}
