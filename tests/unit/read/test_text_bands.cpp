// Long texts read in bands by all threads: cut once, whatever the pattern of lines. Numeric
// lines alternating with comment lines or block headers made one thread dispatch per line
// (4 MB of "1" / "#" lines: 0.3 s with one thread, 11–77 s with two). Expected values are
// those the test writes into the text.
#include <doctest/doctest.h>

#include <string>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/runtime.hpp"
#include "runtime/parallel.hpp"
#include "test_util.hpp"

namespace {

// The parallel_for calls that reading `text` makes, and the tensor read.
std::size_t dispatches_of(const std::string& text, attn::Tensor& out) {
    const std::size_t before = attn::parallel_for_calls();
    out = attn::io::parse_text_tensor(text, "t.txt");
    return attn::parallel_for_calls() - before;
}

std::string error_of(const std::string& text) {
    try {
        attn::io::parse_text_tensor(text, "t.txt");
    } catch (const attn::InputError& e) {
        return e.what();
    }
    return "(no error)";
}

// Restores the thread count at the end of a test.
struct ThreadsScope {
    unsigned before = attn::current_threads();
    ~ThreadsScope() { attn::set_threads(before); }
};

}  // namespace

TEST_CASE("text bands: numbers alternating with comment lines take a fixed number of dispatches") {
    ThreadsScope scope;
    std::string text;
    const std::size_t rows = 600000;  // 2.4 MB: over the 1 MiB from which bands go to the threads
    for (std::size_t r = 0; r < rows; ++r) text += std::to_string(r % 10) + "\n#\n";
    for (unsigned threads : {1u, 2u}) {
        INFO("threads " << threads);
        attn::set_threads(threads);
        attn::Tensor t;
        CHECK(dispatches_of(text, t) <= 2);  // the bands, then the copy into the tensor
        REQUIRE(t.shape() == attn::Shape{rows, 1});
        std::size_t wrong = 0;
        for (std::size_t r = 0; r < rows; ++r) wrong += t.data()[r * t.row_stride()] != float(r % 10);
        CHECK(wrong == 0);
    }
}

TEST_CASE("text bands: attn's csv of a (100000, 2, 8) tensor, a header every two rows, in a fixed number of dispatches") {
    ThreadsScope scope;
    const std::size_t blocks = 100000, rows = 2, cols = 8;
    std::string text;
    for (std::size_t b = 0; b < blocks; ++b) {
        text += "# m [" + std::to_string(b) + "] 2x8\n";
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t c = 0; c < cols; ++c) text += (c ? "," : "") + std::to_string((b * rows + r) * cols + c) + ".5";
            text += '\n';
        }
        if (b % 3 == 0) text += '\n';  // blank lines between some blocks
    }
    for (unsigned threads : {1u, 2u, 7u}) {
        INFO("threads " << threads);
        attn::set_threads(threads);
        attn::Tensor t;
        CHECK(dispatches_of(text, t) <= 2);
        REQUIRE(t.shape() == attn::Shape{blocks, rows, cols});
        std::size_t wrong = 0;
        for (std::size_t b = 0; b < blocks; ++b)
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t c = 0; c < cols; ++c)
                    wrong += t.slice_data(b)[r * t.row_stride() + c] != float((b * rows + r) * cols + c) + 0.5f;
        CHECK(wrong == 0);
    }
}

TEST_CASE("text bands: errors anywhere are those of the serial reading, at their line") {
    ThreadsScope scope;
    const std::size_t rows = 400000;  // lines 2k + 1 hold row k; the even lines are comments
    const auto numbered = [&](std::size_t bad_row, const std::string& bad_line) {
        std::string text;
        for (std::size_t r = 0; r < rows; ++r) text += (r == bad_row ? bad_line : std::to_string(r) + " 1") + "\n# note\n";
        return text;
    };
    for (unsigned threads : test_util::thread_counts({1u, 2u, 3u})) {
        INFO("threads " << threads);
        attn::set_threads(threads);
        // a short row in a middle band
        CHECK(error_of(numbered(250000, "7")) == "t.txt:500001: row has 1 value, expected 2");
        // a value the fast path leaves to the full rules, then an error after it
        std::string text = numbered(300000, "+3 1");
        CHECK(error_of(text) == "(no error)");
        text.replace(text.find("\n399999 1\n") + 1, 8, "399999 x");
        CHECK(error_of(text) == "t.txt:799999:8: expected a number, found 'x'");
        // a line ending in "(RxC):" is a pretty title, even when it starts with a digit
        CHECK(error_of(numbered(200000, "1#x (2x3):")) ==
              "t.txt:400001:1: a second matrix starts here; attn reads one matrix per input");
        // a header that cannot be read, in the last band
        CHECK(error_of(numbered(399000, "# m [99999999999999999999999] 2x2")) ==
              "t.txt:798001:1: this block header's index or size is too large");
    }
}
