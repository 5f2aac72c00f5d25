// The shared writer (src/write/output_file.hpp): all or nothing, links followed, modes kept.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "attn/error.hpp"
#include "write/output_file.hpp"
#include "write/staged_folder.hpp"
#include "write/temp_files.hpp"

#include "test_util.hpp"

namespace {

using test_util::TempDir;

std::string slurp(const std::string& path) { return test_util::file_bytes(path); }
void put(const std::string& path, const std::string& text) { test_util::write_file(path, text); }

}  // namespace

using attn::io::detail::OutputFile;
using attn::io::detail::write_files;

TEST_CASE("OutputFile: nothing is visible before commit, and nothing is left without it") {
    TempDir d;
    put(d / "old.txt", "old");
    {
        OutputFile f(d / "old.txt");
        f.write("new");
        f.close_data();
        CHECK(slurp(d / "old.txt") == "old");
        CHECK(d.entries() == 2);  // the target and one temporary
    }
    CHECK(slurp(d / "old.txt") == "old");
    CHECK(d.entries() == 1);
    {
        OutputFile f(d / "old.txt");
        f.write(std::string(200000, 'x'));  // more than the buffer
        f.commit();
    }
    CHECK(slurp(d / "old.txt") == std::string(200000, 'x'));
    CHECK(d.entries() == 1);
}

TEST_CASE("OutputFile: a symbolic link is written through, a mode is kept") {
    TempDir d;
    put(d / "target", "old");
    ::chmod((d / "target").c_str(), 0600);
    REQUIRE(::symlink("target", (d / "link").c_str()) == 0);
    OutputFile f(d / "link");
    f.write("new");
    f.commit();
    struct stat st {};
    REQUIRE(::lstat((d / "link").c_str(), &st) == 0);
    CHECK(S_ISLNK(st.st_mode));
    CHECK(slurp(d / "target") == "new");
    REQUIRE(::stat((d / "target").c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0600);
}

TEST_CASE("write_files: one output failing means none is written") {
    TempDir d;
    put(d / "a.txt", "old a");
    ::mkdir((d / "dir").c_str(), 0777);
    CHECK_THROWS_AS(write_files({{d / "a.txt", "new a"}, {d / "b.txt", "b"}, {d / "dir", "c"}}), attn::RuntimeFailure);
    CHECK(slurp(d / "a.txt") == "old a");
    CHECK(::access((d / "b.txt").c_str(), F_OK) != 0);
    CHECK(d.entries() == 2);  // a.txt and dir: no temporaries
    if (::access("/dev/full", W_OK) == 0) {
        CHECK_THROWS_AS(write_files({{d / "b.txt", "b"}, {"/dev/full", "x"}}), attn::RuntimeFailure);
        CHECK(::access((d / "b.txt").c_str(), F_OK) != 0);
    }
    // A folder created for the outputs is removed again when the run fails.
    CHECK_THROWS_AS(write_files({{d / "new/x.npy", "x", true}, {d / "dir", "c"}}), attn::RuntimeFailure);
    CHECK(::access((d / "new").c_str(), F_OK) != 0);
    write_files({{d / "new/x.npy", "x", true}, {d / "a.txt", "new a"}});
    CHECK(slurp(d / "new/x.npy") == "x");
    CHECK(slurp(d / "a.txt") == "new a");
}

TEST_CASE("OutputFile: a replaced file gets exactly the bytes written, whatever was allocated ahead") {
    // On ext4 the temporary file's blocks are allocated 4 MiB ahead of the writes: what is
    // left must be cut back to the bytes written (no trailing zeros), over a bigger or a
    // smaller old file, written in small pieces and in big ones; a new file has no
    // allocation ahead. Elsewhere the same bytes come out by plain writes. The size expected
    // in advance (expect_size) is exact for npy outputs; a wrong one must change nothing.
    TempDir d;
    std::string text;
    for (std::size_t i = 0; text.size() < (std::size_t(9) << 20); ++i) text += std::to_string(i * 7919 % 100003) + ",\n"[i % 13 == 12];
    for (std::size_t size : {std::size_t(3), std::size_t(1) << 16, (std::size_t(4) << 20) + 1, std::size_t(9) << 20}) {
        for (std::size_t old_size : {std::size_t(0), std::size_t(100), std::size_t(12) << 20})
        for (std::size_t expected : {std::size_t(0), size, size / 2, size + 5000}) {
            INFO("size " << size << ", old file " << old_size << ", expected size " << expected);
            const std::string path = d / ("out" + std::to_string(old_size));
            if (old_size) put(path, std::string(old_size, 'x'));
            const std::string want = text.substr(0, size);
            {
                OutputFile f(path);
                if (expected) f.expect_size(expected);
                for (std::size_t at = 0; at < want.size();) {
                    const std::size_t n = std::min<std::size_t>(want.size() - at, at % 3 ? 1000 : 300000);
                    f.write(std::string_view(want).substr(at, n));
                    at += n;
                }
                f.commit();
            }
            CHECK(slurp(path) == want);
            struct stat st {};
            REQUIRE(::stat(path.c_str(), &st) == 0);
            CHECK(std::size_t(st.st_size) == size);
            CHECK(std::size_t(st.st_blocks) * 512 <= size + 65536);  // nothing allocated beyond
            CHECK(d.entries() == 1);  // no temporary file left
            ::unlink(path.c_str());
        }
    }
}

using attn::io::detail::StagedFolder;

namespace {
void write_file(const std::string& path, const std::string& text) {
    OutputFile f(path);
    f.write(text);
    f.commit();
}
}  // namespace

TEST_CASE("StagedFolder: a new DIR appears whole at publish, and not at all without it") {
    TempDir d;
    {
        StagedFolder s(d / "out");
        write_file(s.path_of("a.npy"), "a");
        write_file(s.path_of("b.npy"), "b");
        CHECK(::access((d / "out").c_str(), F_OK) != 0);  // nothing under the final name yet
        s.publish();
    }
    CHECK(slurp(d / "out/a.npy") == "a");
    CHECK(slurp(d / "out/b.npy") == "b");
    CHECK(d.entries() == 1);  // out, no staging folder left
    struct stat st {};
    REQUIRE(::stat((d / "out").c_str(), &st) == 0);
    const mode_t mask = ::umask(0);
    ::umask(mask);
    CHECK((st.st_mode & 0777) == (0777 & ~mask));  // not mkdtemp's 0700
    {
        StagedFolder s(d / "other/");
        write_file(s.path_of("a.npy"), "a");
    }  // never published
    CHECK(d.entries() == 1);
    CHECK_THROWS_AS(StagedFolder(d / "out/a.npy"), attn::UsageError);         // not a folder
    CHECK_THROWS_AS(StagedFolder(d / "missing/out"), attn::RuntimeFailure);  // parents are not made
}

TEST_CASE("StagedFolder: an existing DIR keeps its files until publish, and all of them without it") {
    TempDir d;
    REQUIRE(::mkdir((d / "out").c_str(), 0755) == 0);
    put(d / "out/a.npy", "old a");
    put(d / "out/keep", "keep");
    {
        StagedFolder s(d / "out");
        write_file(s.path_of("a.npy"), "new a");
        CHECK(slurp(d / "out/a.npy") == "old a");
    }
    CHECK(slurp(d / "out/a.npy") == "old a");
    {
        StagedFolder s(d / "out");
        write_file(s.path_of("a.npy"), "new a");
        write_file(s.path_of("b.npy"), "new b");
        s.publish();
    }
    CHECK(slurp(d / "out/a.npy") == "new a");
    CHECK(slurp(d / "out/b.npy") == "new b");
    CHECK(slurp(d / "out/keep") == "keep");
    REQUIRE(::mkdir((d / "out/c.npy").c_str(), 0755) == 0);  // a name DIR holds as a folder
    {
        StagedFolder s(d / "out");
        write_file(s.path_of("a.npy"), "newer a");
        write_file(s.path_of("c.npy"), "c");
        for (int i = 0; i < 20; ++i) write_file(s.path_of("d" + std::to_string(i) + ".npy"), "d");
        CHECK_THROWS_AS(s.publish(), attn::RuntimeFailure);
    }
    CHECK(slurp(d / "out/a.npy") == "new a");  // nothing moved, whatever order the folder lists
    CHECK(::access((d / "out/d0.npy").c_str(), F_OK) != 0);
    REQUIRE(::rmdir((d / "out/c.npy").c_str()) == 0);
    // out holds a.npy, b.npy, keep and no staging folder
    std::size_t n = 0;
    if (FILE* p = ::popen(("ls -A '" + (d / "out") + "'").c_str(), "r")) {
        char line[4096];
        while (std::fgets(line, sizeof line, p)) ++n;
        ::pclose(p);
    }
    CHECK(n == 3);
}

// What the signal handler runs: the staging folder goes with its files, however many (more
// than one getdents64 buffer of names), while the folder's owner is still alive.
TEST_CASE("remove_pending_temps: a staging folder is removed with its files") {
    TempDir d;
    {
        StagedFolder s(d / "out");
        for (int i = 0; i < 500; ++i) write_file(s.path_of("draw_with_a_long_name_" + std::to_string(i) + ".npy"), "x");
        CHECK(d.entries() == 1);
        attn::io::detail::remove_pending_temps();
        CHECK(d.entries() == 0);
    }
    CHECK(d.entries() == 0);
}
