// Where an output path leads (declared in write/output_target.hpp). Each link is looked at
// through a descriptor of the folder holding it, so that the folder whose owner and mode decide
// the rule is the one the link is read from, whatever the links above it.
#include "write/output_target.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "attn/error.hpp"

namespace attn::io::detail {

namespace {

struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

std::string base_of(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The text of the link p names, or nothing when p is not a link (or its folder cannot be
// opened: making the output there reports that). A link the rule forbids is an error.
std::optional<std::string> read_link(const std::string& p, const std::string& shown) {
    const std::string name = base_of(p);
    if (name.empty()) return std::nullopt;
    const Fd dir{::open(parent_of(p).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)};
    struct stat link {}, folder {};
    if (dir.fd < 0 || ::fstatat(dir.fd, name.c_str(), &link, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISLNK(link.st_mode))
        return std::nullopt;
    if (::fstat(dir.fd, &folder) != 0 || !may_follow_link(link.st_uid, folder.st_uid, folder.st_mode, ::geteuid()))
        throw RuntimeFailure("cannot write " + shown + ": the symbolic link " + p + " belongs to another user (uid " +
                             std::to_string(link.st_uid) + ") in the shared folder " + parent_of(p) +
                             " (sticky, world-writable); not followed, as fs.protected_symlinks would refuse it");
    std::string text(4096, '\0');
    const ssize_t n = ::readlinkat(dir.fd, name.c_str(), text.data(), text.size());
    if (n < 0 || std::size_t(n) >= text.size())
        throw RuntimeFailure("cannot write " + shown + ": cannot read the symbolic link " + p);
    text.resize(std::size_t(n));
    return text;
}

std::string follow_chain(const std::string& path, const std::string& shown) {
    std::string p = path;
    for (int hops = 0; hops < 40; ++hops) {
        const auto link = read_link(p, shown);
        if (!link) return p;
        p = !link->empty() && (*link)[0] == '/' ? *link : parent_of(p) + "/" + *link;
    }
    throw RuntimeFailure("cannot write " + shown + ": too many levels of symbolic links");
}

}  // namespace

bool may_follow_link(uid_t link_owner, uid_t folder_owner, mode_t folder_mode, uid_t follower) {
    const bool shared = (folder_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH);
    return !shared || link_owner == follower || link_owner == folder_owner;
}

std::string parent_of(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

void check_folder_links(const std::string& dir, const std::string& shown) {
    std::string d = dir;
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    follow_chain(d, shown);
}

std::string follow_links(const std::string& path, const std::string& shown) {
    if (const std::string dir = parent_of(path); dir != "." && dir != "/") check_folder_links(dir, shown);
    return follow_chain(path, shown);
}

EntryKey entry_key(const std::string& path) {
    namespace fs = std::filesystem;
    fs::path rest;
    for (std::string p = path;;) {
        const std::string dir = parent_of(p);
        rest = rest.empty() ? fs::path(base_of(p)) : fs::path(base_of(p)) / rest;
        struct stat st {};
        if (::stat(dir.c_str(), &st) == 0) return {st.st_dev, st.st_ino, rest.lexically_normal().string()};
        if (dir == p || dir == "." || dir == "/") break;  // not even the working folder: compare names
        p = dir;
    }
    std::error_code ec;
    return {0, 0, fs::absolute(path, ec).lexically_normal().string()};
}

}  // namespace attn::io::detail
