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
    std::string good;
    std::vector<std::size_t> row_at(rows);  // where row k's line starts in good
    for (std::size_t r = 0; r < rows; ++r) {
        row_at[r] = good.size();
        good += std::to_string(r) + " 1\n# note\n";
    }
    // good with row bad_row's line replaced (built once: under qemu or a sanitizer, building the
    // texts took as long as reading them)
    const auto numbered = [&](std::size_t bad_row, const std::string& bad_line) {
        return std::string(good).replace(row_at[bad_row], std::to_string(bad_row).size() + 2, bad_line);
    };
    // a short row in a middle band
    const std::string short_row = numbered(250000, "7");
    // a value the fast path leaves to the full rules, then an error after it
    const std::string full_rules = numbered(300000, "+3 1");
    std::string error_after = full_rules;
    error_after.replace(error_after.find("\n399999 1\n") + 1, 8, "399999 x");
    // a line ending in "(RxC):" is a pretty title, even when it starts with a digit
    const std::string title = numbered(200000, "1#x (2x3):");
    // a header that cannot be read, in the last band
    const std::string header = numbered(399000, "# m [99999999999999999999999] 2x2");
    for (unsigned threads : test_util::thread_counts({1u, 2u, 3u})) {
        INFO("threads " << threads);
        attn::set_threads(threads);
        CHECK(error_of(short_row) == "t.txt:500001: row has 1 value, expected 2");
        CHECK(error_of(full_rules) == "(no error)");
        CHECK(error_of(error_after) == "t.txt:799999:8: expected a number, found 'x'");
        CHECK(error_of(title) == "t.txt:400001:1: a second matrix starts here; attn reads one matrix per input");
        CHECK(error_of(header) == "t.txt:798001:1: this block header's index or size is too large");
    }
}
