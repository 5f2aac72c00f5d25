// The commit phase (src/write/commit.hpp): every output of a run moves into place, or none.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "attn/error.hpp"
#include "attn/runtime.hpp"
#include "runtime/parallel.hpp"
#include "write/commit.hpp"
#include "write/output_file.hpp"
#include "write/staged_folder.hpp"
#include "write/temp_files.hpp"

#include "test_util.hpp"

namespace {

using test_util::TempDir;

std::string slurp(const std::string& path) { return test_util::file_bytes(path); }
void put(const std::string& path, const std::string& text) { test_util::write_file(path, text); }

// What another process writing the same output does: a new file renamed over it.
void replace_from_outside(const std::string& path, const std::string& text) {
    put(path + ".other", text);
    REQUIRE(std::rename((path + ".other").c_str(), path.c_str()) == 0);
}

}  // namespace

using attn::io::detail::Commit;
using attn::io::detail::file_id;
using attn::io::detail::FileId;
using attn::io::detail::OutputFile;
using attn::io::detail::write_files;

TEST_CASE("Commit: an output another process replaced or created meanwhile fails the run, and nothing moves") {
    TempDir d;
    put(d / "a.txt", "old a");
    {
        OutputFile a(d / "a.txt"), b(d / "b.txt");
        a.write("new a"), b.write("new b");
        a.close_data(), b.close_data();
        replace_from_outside(d / "a.txt", "other a");
        Commit c;
        a.add_to(c), b.add_to(c);
        try {
            c.run();
            FAIL("the commit went through");
        } catch (const attn::RuntimeFailure& e) {
            CHECK(std::string(e.what()).find("a.txt: another process replaced it while attn was writing") !=
                  std::string::npos);
        }
    }
    CHECK(slurp(d / "a.txt") == "other a");
    CHECK(d.listing() == "a.txt\n");  // no b.txt, no temporaries
    {
        OutputFile a(d / "a.txt"), b(d / "b.txt");
        a.write("new a"), b.write("new b");
        a.close_data(), b.close_data();
        put(d / "b.txt", "other b");
        Commit c;
        a.add_to(c), b.add_to(c);
        CHECK_THROWS_WITH_AS(c.run(), doctest::Contains("b.txt: another process created it"), attn::RuntimeFailure);
    }
    CHECK(slurp(d / "a.txt") == "other a");
    CHECK(slurp(d / "b.txt") == "other b");
    CHECK(d.listing() == "a.txt\nb.txt\n");
    // Removed meanwhile is no conflict: the name is free.
    {
        OutputFile a(d / "a.txt");
        a.write("new a");
        a.close_data();
        REQUIRE(::unlink((d / "a.txt").c_str()) == 0);
        a.commit();
    }
    CHECK(slurp(d / "a.txt") == "new a");
}

TEST_CASE("Commit: a rename failing half-way puts the outputs already moved back") {
    TempDir d;
    put(d / "a.txt", "old a");
    put(d / ".a.new", "new a");
    put(d / ".b.new", "new b");
    Commit c;
    c.add(d / ".a.new", d / "a.txt", "a.txt", file_id(d / "a.txt"));  // swapped with the old a.txt
    c.add(d / ".b.new", d / "b.txt", "b.txt", FileId{});              // a new name
    c.add(d / ".missing", d / "c.txt", "c.txt", FileId{});            // fails: nothing to move
    CHECK_THROWS_WITH_AS(c.run(), doctest::Contains("cannot write c.txt"), attn::RuntimeFailure);
    CHECK(slurp(d / "a.txt") == "old a");
    CHECK(slurp(d / ".a.new") == "new a");  // back where its owner removes it from
    CHECK(slurp(d / ".b.new") == "new b");
    CHECK(d.listing() == ".a.new\n.b.new\na.txt\n");
}

TEST_CASE("write_files: the old contents of replaced outputs go, and a missing folder appears whole") {
    TempDir d;
    put(d / "a.txt", "old a");
    write_files({{d / "a.txt", "new a"}, {d / "D/x.npy", "x", true}, {d / "D/y.npy", "y", true}});
    CHECK(slurp(d / "a.txt") == "new a");
    CHECK(slurp(d / "D/x.npy") == "x");
    CHECK(slurp(d / "D/y.npy") == "y");
    CHECK(d.listing() == "D\na.txt\n");
    // The folder made by another process meanwhile: found before anything moves.
    {
        attn::io::detail::StagedFolder s(d / "E");
        OutputFile x(s.path_of("x.npy"));
        x.write("x");
        x.commit();
        REQUIRE(::mkdir((d / "E").c_str(), 0777) == 0);
        put(d / "E/theirs", "theirs");
        CHECK_THROWS_WITH_AS(s.publish(), doctest::Contains("E: another process created it"), attn::RuntimeFailure);
    }
    CHECK(d.listing() == "D\nE\na.txt\n");  // no staging folder left
    CHECK(slurp(d / "E/theirs") == "theirs");
    CHECK(::access((d / "E/x.npy").c_str(), F_OK) != 0);
}

namespace {
std::atomic<int> usr1_seen{0};
void on_usr1(int) { usr1_seen.fetch_add(1); }
}  // namespace

TEST_CASE("DeferredSignals: a signal sent to the process waits until the renames are done, worker threads or not") {
    struct sigaction sa {}, old {};
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    REQUIRE(::sigaction(SIGUSR1, &sa, &old) == 0);
    const unsigned threads = attn::current_threads();
    attn::set_threads(4);
    attn::parallel_for(64, [](std::size_t) {});  // the pool's threads exist, idle
    usr1_seen = 0;
    {
        const attn::io::detail::DeferredSignals deferred;
        ::kill(::getpid(), SIGUSR1);  // to the process: any thread not blocking it may take it
        for (int i = 0; i < 1000 && usr1_seen == 0; ++i) ::usleep(100);
        CHECK(usr1_seen == 0);
    }
    CHECK(usr1_seen == 1);
    attn::set_threads(threads);
    ::sigaction(SIGUSR1, &old, nullptr);
}
