#include "write/staged_folder.hpp"

#include <sys/stat.h>
#include <unistd.h>

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
        const fs::path p(dir_);
        const fs::path parent = p.parent_path().empty() ? fs::path(".") : p.parent_path();
        pattern = temp_pattern(parent.string(), p.filename().string());
    } else {
        throw RuntimeFailure("cannot create directory " + dir + ": " + std::strerror(errno));
    }
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    if (!::mkdtemp(name.data())) throw RuntimeFailure("cannot create directory " + dir + ": " + std::strerror(errno));
    staging_ = name.data();
    try {
        remember_temp(staging_, TempKind::folder_and_files);
    } catch (...) {
        ::rmdir(staging_.c_str());
        throw;
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

void StagedFolder::publish() {
    if (!existed_) {
        if (::rename(staging_.c_str(), dir_.c_str()) != 0)
            throw RuntimeFailure("cannot create directory " + dir_ + ": " + std::strerror(errno));
    } else {
        std::vector<std::string> names;
        std::error_code ec;
        for (fs::directory_iterator it(staging_, ec), end; !ec && it != end; it.increment(ec))
            names.push_back(it->path().filename().string());
        if (ec) throw RuntimeFailure("cannot read " + staging_ + ": " + ec.message());
        // A name DIR holds as a folder cannot be replaced by a file: found before any file
        // moves, so that DIR is left as it was.
        for (const auto& n : names) {
            struct stat st {};
            const std::string to = dir_ + "/" + n;
            if (::lstat(to.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
                throw RuntimeFailure("cannot write " + to + ": is a directory");
        }
        for (const auto& n : names) {
            const std::string to = dir_ + "/" + n;
            if (::rename(path_of(n).c_str(), to.c_str()) != 0)
                throw RuntimeFailure("cannot write " + to + ": " + std::strerror(errno));
        }
        ::rmdir(staging_.c_str());
    }
    published_ = true;
    forget_temp(staging_);
}

}  // namespace attn::io::detail
