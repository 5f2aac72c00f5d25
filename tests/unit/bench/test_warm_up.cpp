// bench's warm-up: more rounds while each takes fewer page faults than the one before, so that
// the timed runs are the steady state of repeated calls.
#include <doctest/doctest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "bench/bench.hpp"

namespace {

// A call that touches pages[i] fresh pages of a mapping on its i-th run (none past the list):
// pages[i] page faults.
class Faulting {
public:
    explicit Faulting(std::vector<std::size_t> pages) : pages_(std::move(pages)) {
        std::size_t total = 0;
        for (std::size_t n : pages_) total += n;
        bytes_ = (total + 1) * page_;
        base_ = static_cast<char*>(::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        REQUIRE(base_ != MAP_FAILED);
        ::madvise(base_, bytes_, MADV_NOHUGEPAGE);  // one fault a page
    }
    ~Faulting() { ::munmap(base_, bytes_); }
    std::function<void()> call() {
        return [this] {
            const std::size_t n = runs_ < pages_.size() ? pages_[runs_] : 0;
            for (std::size_t p = 0; p < n; ++p) base_[(next_ + p) * page_] = 1;
            next_ += n;
            ++runs_;
        };
    }
    std::size_t runs() const { return runs_; }

private:
    std::vector<std::size_t> pages_;
    std::size_t page_ = std::size_t(::sysconf(_SC_PAGESIZE)), bytes_ = 0, next_ = 0, runs_ = 0;
    char* base_ = nullptr;
};

}  // namespace

TEST_CASE("warm_up: on while the page faults fall, to the first round without any") {
    Faulting f({512, 256, 128, 0});
    CHECK(attn::bench::warm_up({f.call()}, 1) == 4);  // 512, then 256, 128, 0: steady
    CHECK(f.runs() == 4);
}

TEST_CASE("warm_up: a call that faults as much each time (fresh memory every call) gets no more rounds") {
    Faulting f(std::vector<std::size_t>(40, 256));
    // 256, 256: the second does not fall (a third only if other work in the process faulted
    // during the first).
    const int rounds = attn::bench::warm_up({f.call()}, 1);
    CHECK(rounds >= 2);
    CHECK(rounds <= 3);
}

TEST_CASE("warm_up: the rounds asked for run whatever their faults; none with --warmup 0") {
    Faulting a({0, 0, 0, 0});
    CHECK(attn::bench::warm_up({a.call()}, 3) == 3);  // no faults: no more
    Faulting b({512, 256, 128, 64});
    CHECK(attn::bench::warm_up({b.call()}, 0) == 0);
    CHECK(b.runs() == 0);
    std::vector<std::size_t> falling;
    for (std::size_t n = 40; n > 0; --n) falling.push_back(8 * n);
    Faulting d(falling);  // faults fall for 40 rounds: the extra rounds stop at their limit
    CHECK(attn::bench::warm_up({d.call()}, 1) == 1 + attn::bench::extra_warmup_rounds);
}

TEST_CASE("warm_up: one call of each a round") {
    Faulting a({64, 0}), b({0, 0});
    CHECK(attn::bench::warm_up({a.call(), b.call()}, 1) == 2);
    CHECK(a.runs() == 2);
    CHECK(b.runs() == 2);
}
