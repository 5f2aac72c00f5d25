#include "write/commit.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <utility>

#include "attn/error.hpp"
#include "write/output_target.hpp"
#include "write/temp_files.hpp"

namespace attn::io::detail {

FileId file_id(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return {};
    return {true, st.st_dev, st.st_ino};
}

namespace {

// flock on every folder given, taken in (device, inode) order so that two runs never wait on
// each other crosswise, and each folder once (a second descriptor of it would wait on the
// first). A folder that cannot be opened or locked (no read permission, NFS) goes unlocked.
class FolderLocks {
public:
    explicit FolderLocks(std::vector<std::string> folders) {
        std::sort(folders.begin(), folders.end());  // the draws of one DIR: one open, not thousands
        folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
        std::vector<std::tuple<dev_t, ino_t, int>> open;
        for (const auto& f : folders) {
            const int fd = ::open(f.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            struct stat st {};
            if (fd < 0) continue;
            if (::fstat(fd, &st) != 0) {
                ::close(fd);
                continue;
            }
            open.emplace_back(st.st_dev, st.st_ino, fd);
        }
        std::sort(open.begin(), open.end());
        for (std::size_t i = 0; i < open.size(); ++i) {
            const int fd = std::get<2>(open[i]);
            if (i > 0 && std::get<0>(open[i]) == std::get<0>(open[i - 1]) && std::get<1>(open[i]) == std::get<1>(open[i - 1])) {
                ::close(fd);
                continue;
            }
            fds_.push_back(fd);
            while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
            }
        }
    }
    ~FolderLocks() {
        for (int fd : fds_) ::close(fd);  // which releases the lock
    }
    FolderLocks(const FolderLocks&) = delete;
    FolderLocks& operator=(const FolderLocks&) = delete;

private:
    std::vector<int> fds_;
};

// Test-only, for tests/e2e/test_commit_all_or_none.sh: ATTN_TEST_SIGNAL_AT_RENAME="K SIG"
// makes the process send itself signal number SIG just before the K-th rename that publishes
// an output (counted from 1 over the run), where a signal would do the most harm. Harmless:
// any process may signal itself, and the variable changes nothing else.
void test_signal_before_rename() {
    static int at = -1, sig = 0, count = 0;
    if (at < 0) {
        const char* v = std::getenv("ATTN_TEST_SIGNAL_AT_RENAME");
        if (!v || std::sscanf(v, "%d %d", &at, &sig) != 2) at = 0;
    }
    if (++count == at && sig > 0) ::kill(::getpid(), sig);
}

enum How { placed = 0, exchanged = 1, overwritten = 2 };

// Moves one output into place: how, or -1 with errno set.
int publish(const std::string& from, const std::string& to, bool replaces) {
    // EINVAL, ENOSYS: the file system has no such rename (then a plain one); ENOENT on an
    // exchange: the output was removed meanwhile, so the name is free.
    if (replaces) {
        if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_EXCHANGE) == 0) return exchanged;
        if (errno == EINVAL || errno == ENOSYS) return ::rename(from.c_str(), to.c_str()) == 0 ? overwritten : -1;
        if (errno != ENOENT) return -1;
    }
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return placed;
    if (errno == EINVAL || errno == ENOSYS) return ::rename(from.c_str(), to.c_str()) == 0 ? placed : -1;
    return -1;
}

}  // namespace

void Commit::add(const std::string& from, const std::string& to, const std::string& shown, const FileId& before) {
    steps_.push_back({from, to, shown, before});
}

void Commit::undo(std::size_t done) noexcept {
    while (done-- > 0) {
        const Step& s = steps_[done];
        if (s.how == exchanged) ::renameat2(AT_FDCWD, s.from.c_str(), AT_FDCWD, s.to.c_str(), RENAME_EXCHANGE);
        else if (s.how == placed) ::rename(s.to.c_str(), s.from.c_str());
        // overwritten: the old contents are gone; the new ones stay.
    }
}

namespace {

// RuntimeFailure unless the output `to` is still what it was (a removed one: its name is free).
FileId unchanged(const std::string& to, const std::string& shown, FileId before) {
    const FileId now = file_id(to);
    if (before.exists && !now.exists) before = now;
    if (now != before)
        throw RuntimeFailure("cannot write " + shown + ": another process " + (before.exists ? "replaced" : "created") +
                             " it while attn was writing (two runs writing one output?); no output was changed");
    return before;
}

}  // namespace

void Commit::check() const {
    for (const auto& s : steps_) {
        unchanged(s.to, s.shown, s.before);
        // A name longer than its folder takes: the temporary beside it has a short one, so only the
        // rename would say so (after standard output).
        const std::string name = s.to.substr(s.to.rfind('/') + 1);
        const long most = ::pathconf(parent_of(s.to).c_str(), _PC_NAME_MAX);
        if (name.size() > std::size_t(most > 0 ? most : NAME_MAX))
            throw RuntimeFailure("cannot write " + s.shown + ": " + std::strerror(ENAMETOOLONG));
    }
}

void Commit::run() {
    if (steps_.empty()) return;
    std::vector<std::string> folders;
    for (const auto& s : steps_) folders.push_back(parent_of(s.to));
    const FolderLocks locks(std::move(folders));
    for (auto& s : steps_) s.before = unchanged(s.to, s.shown, s.before);
    {
        const DeferredSignals deferred;
        for (std::size_t k = 0; k < steps_.size(); ++k) {
            Step& s = steps_[k];
            test_signal_before_rename();
            const int how = publish(s.from, s.to, s.before.exists);
            if (how < 0) {
                const int error = errno;
                undo(k);
                throw RuntimeFailure("cannot write " + s.shown + ": " + std::strerror(error));
            }
            s.how = how;
        }
    }
    for (const auto& s : steps_)
        if (s.how == exchanged) ::unlink(s.from.c_str());  // the old contents
}

}  // namespace attn::io::detail
