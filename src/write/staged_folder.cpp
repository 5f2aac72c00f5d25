#include "write/staged_folder.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "attn/error.hpp"
#include "write/output_target.hpp"
#include "write/temp_files.hpp"

namespace attn::io::detail {

namespace fs = std::filesystem;

StagedFolder::StagedFolder(const std::string& dir) : dir_(dir) {
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    check_folder_links(dir_, dir);  // a link planted as DIR in a shared folder is not followed
    std::string pattern;
    struct stat st {};
    if (::stat(dir_.c_str(), &st) == 0) {
        // -o names a file where a folder is needed: the argument is wrong (exit 2), as attend says.
        if (!S_ISDIR(st.st_mode))
            throw SettingError("output", "", " " + dir + ": not a directory (one file per draw needs a directory)");
        existed_ = true;
        pattern = dir_ + "/.attn-XXXXXX";
    } else if (errno == ENOENT) {
        pattern = temp_pattern(parent_of(dir_), dir_.substr(dir_.rfind('/') + 1));
    } else {
        throw RuntimeFailure("cannot create directory " + dir + ": " + std::strerror(errno));
    }
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    {
        // Made and recorded with the signals held off: one in between would leave it behind.
        const DeferredSignals deferred;
        if (!::mkdtemp(name.data())) throw RuntimeFailure("cannot create directory " + dir + ": " + std::strerror(errno));
        staging_ = name.data();
        try {
            remember_temp(staging_, TempKind::folder_and_files);
        } catch (...) {
            ::rmdir(staging_.c_str());
            throw;
        }
    }
    // mkdtemp makes the folder private (0700); a DIR made by attn gets the usual mode.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (!existed_) ::chmod(staging_.c_str(), 0777 & ~mask);
}

StagedFolder::~StagedFolder() {
    if (published_) return;
    std::error_code ec;
    fs::remove_all(staging_, ec);
    forget_temp(staging_);
}

std::string StagedFolder::path_of(const std::string& name) {
    if (existed_ && std::none_of(names_.begin(), names_.end(), [&](const auto& n) { return n.first == name; }))
        names_.emplace_back(name, file_id(dir_ + "/" + name));
    return staging_ + "/" + name;
}

void StagedFolder::add_to(Commit& c) const {
    if (!existed_) {
        c.add(staging_, dir_, dir_, before_);
        return;
    }
    // A name DIR holds as a folder cannot be replaced by a file (an exchange would swap them).
    for (const auto& [name, before] : names_) {
        struct stat st {};
        const std::string to = dir_ + "/" + name;
        if (::lstat(to.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            throw RuntimeFailure("cannot write " + to + ": is a directory");
    }
    for (const auto& [name, before] : names_) c.add(staging_ + "/" + name, dir_ + "/" + name, dir_ + "/" + name, before);
}

void StagedFolder::mark_published() {
    if (existed_) ::rmdir(staging_.c_str());  // emptied by the Commit
    published_ = true;
    forget_temp(staging_);
}

void StagedFolder::publish() {
    Commit c;
    add_to(c);
    c.run();
    mark_published();
}

}  // namespace attn::io::detail
