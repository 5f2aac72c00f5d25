// Where an output path leads (src/write/output_target.hpp): the shared-folder link rule, links
// followed, and the directory entry a path names whatever its spelling.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "attn/error.hpp"
#include "write/output_target.hpp"

using attn::io::detail::entry_key;
using attn::io::detail::follow_links;
using attn::io::detail::may_follow_link;

namespace {

struct Scratch {
    std::string path;
    Scratch() {
        char tmpl[] = "/tmp/attn-output-target-XXXXXX";
        REQUIRE(::mkdtemp(tmpl) != nullptr);
        path = tmpl;
    }
    ~Scratch() { [[maybe_unused]] int rc = std::system(("rm -rf '" + path + "'").c_str()); }
    std::string operator/(const std::string& name) const { return path + "/" + name; }
};

}  // namespace

TEST_CASE("may_follow_link: the rule of fs.protected_symlinks (Documentation/admin-guide/sysctl/fs.rst)") {
    const uid_t root = 0, nobody = 65534, user = 1000;
    // /tmp: sticky, world-writable, root's. A link planted there by nobody is not followed by
    // root or another user; its owner follows it.
    CHECK_FALSE(may_follow_link(nobody, root, S_IFDIR | 01777, root));
    CHECK_FALSE(may_follow_link(nobody, root, S_IFDIR | 01777, user));
    CHECK(may_follow_link(nobody, root, S_IFDIR | 01777, nobody));
    // The folder's owner owns the link: followed by anyone (root's links in /tmp).
    CHECK(may_follow_link(root, root, S_IFDIR | 01777, user));
    CHECK(may_follow_link(nobody, nobody, S_IFDIR | 01777, root));
    // Not a shared folder: sticky but not world-writable, or world-writable but not sticky.
    CHECK(may_follow_link(nobody, root, S_IFDIR | 01775, root));
    CHECK(may_follow_link(nobody, root, S_IFDIR | 0777, root));
    CHECK(may_follow_link(nobody, root, S_IFDIR | 0755, root));
    // Group-writable and sticky is not world-writable either.
    CHECK(may_follow_link(nobody, root, S_IFDIR | 01770, root));
}

TEST_CASE("follow_links: our own links are followed to the name they lead to, in a shared folder too") {
    Scratch d;
    REQUIRE(::mkdir((d / "shared").c_str(), 0777) == 0);
    REQUIRE(::chmod((d / "shared").c_str(), 01777) == 0);
    std::ofstream(d / "file") << "x";
    REQUIRE(::symlink("../file", (d / "shared/rel").c_str()) == 0);
    REQUIRE(::symlink((d / "shared/rel").c_str(), (d / "abs").c_str()) == 0);
    REQUIRE(::symlink("not-yet", (d / "shared/dangling").c_str()) == 0);
    CHECK(follow_links(d / "shared/rel", "rel") == d / "shared/../file");
    CHECK(follow_links(d / "abs", "abs") == d / "shared/../file");
    CHECK(follow_links(d / "shared/dangling", "dangling") == d / "shared/not-yet");
    CHECK(follow_links(d / "file", "file") == d / "file");
    CHECK(follow_links(d / "new", "new") == d / "new");
    REQUIRE(::symlink("loop", (d / "loop").c_str()) == 0);
    CHECK_THROWS_AS(follow_links(d / "loop", "loop"), attn::RuntimeFailure);
}

TEST_CASE("entry_key: one directory entry however it is spelled, two entries apart") {
    Scratch d;
    REQUIRE(::mkdir((d / "real").c_str(), 0777) == 0);
    REQUIRE(::symlink("real", (d / "alias").c_str()) == 0);
    // Existing folder, new file: through a symbolic link to the folder, "..", "." and "//".
    CHECK(entry_key(d / "real/w.csv") == entry_key(d / "alias/w.csv"));
    CHECK(entry_key(d / "real/w.csv") == entry_key(d / "alias/../real/./w.csv"));
    CHECK(entry_key(d / "real/w.csv") == entry_key(d / "real//w.csv"));
    CHECK_FALSE(entry_key(d / "real/w.csv") == entry_key(d / "real/w.svg"));
    CHECK_FALSE(entry_key(d / "real/w.csv") == entry_key(d / "w.csv"));
    // A folder not made yet (-o DIR): the rest of the path below the nearest existing one.
    CHECK(entry_key(d / "new/x.npy") == entry_key(d / "alias/../new/./x.npy"));
    CHECK_FALSE(entry_key(d / "new/x.npy") == entry_key(d / "real/new/x.npy"));
    // Relative and absolute spellings.
    char cwd[4096];
    REQUIRE(::getcwd(cwd, sizeof cwd) != nullptr);
    REQUIRE(::chdir(d.path.c_str()) == 0);
    const bool same = entry_key("real/w.csv") == entry_key(d / "alias/w.csv");
    const bool same_new = entry_key("new/x.npy") == entry_key(d / "new/x.npy");
    REQUIRE(::chdir(cwd) == 0);
    CHECK(same);
    CHECK(same_new);
}
