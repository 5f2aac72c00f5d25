// The one writer every command goes through (declared in write/output_file.hpp): all or
// nothing through a temporary file renamed into place, standard output and devices written
// in place, two outputs of one run naming the same file refused before anything is written.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "write/commit.hpp"
#include "write/output_file.hpp"
#include "write/output_target.hpp"
#include "write/staged_folder.hpp"
#include "write/temp_files.hpp"

namespace attn::io {

namespace detail {

[[noreturn]] void die_of_sigpipe() {
    remove_pending_temps();
    std::signal(SIGPIPE, SIG_DFL);
    std::raise(SIGPIPE);
    std::_Exit(141);
}

namespace {

void write_all(int fd, std::string_view bytes, const std::string& name, bool is_stdout) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (is_stdout && errno == EPIPE) die_of_sigpipe();  // the reader went away (| head)
            throw RuntimeFailure("write error: " + name + ": " + std::strerror(errno));
        }
        done += std::size_t(n);
    }
}

mode_t default_file_mode() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

// The descriptor of the standard stream (output or error) already open on the regular file a
// path names (/dev/stdout redirected to a file, /proc/self/fd/1, the file itself), or -1;
// STDOUT_FILENO for "" and "-". That file is written through the stream, never replaced:
// replacing it would lose what the shell writes there before and after attn (`>> log`).
// (A device or FIFO is written in place anyway.)
int standard_stream_of(const std::string& path) {
    struct stat target {}, stream {};
    if (path.empty() || path == "-") return STDOUT_FILENO;
    // A regular file, or the pipe or socket behind /dev/stdout (a link to "pipe:[N]", which no
    // path reaches: a temporary file cannot be made beside it). Devices (/dev/null, a terminal)
    // are written in place, whichever stream they also are.
    if (::stat(path.c_str(), &target) != 0 ||
        !(S_ISREG(target.st_mode) || S_ISFIFO(target.st_mode) || S_ISSOCK(target.st_mode)))
        return -1;
    for (int fd : {STDOUT_FILENO, STDERR_FILENO})
        if (::fstat(fd, &stream) == 0 && stream.st_dev == target.st_dev && stream.st_ino == target.st_ino) return fd;
    return -1;
}

}  // namespace

bool output_is_terminal(const std::string& path) {
    if (path.empty() || path == "-") return ::isatty(STDOUT_FILENO) == 1;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) return false;
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);  // only a character device
    if (fd < 0) return false;
    const bool terminal = ::isatty(fd) == 1;
    ::close(fd);
    return terminal;
}

void refuse_binary_on_terminal(const std::string& path, const char* format) {
    if (output_is_terminal(path))
        throw SettingError("output", std::string(format) + " is binary: refusing to write it to a terminal (use ",
                           " FILE or a pipe)");
}

void refuse_npy_name_for_several(const std::string& path, std::size_t count) {
    const std::string name = path.substr(path.find_last_of('/') + 1);
    const std::size_t dot = name.find_last_of('.');
    std::string ext = dot == std::string::npos || dot == 0 ? "" : name.substr(dot);
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    // The extensions of files attn reads or writes; other names ("head", "run.heads") are folders.
    static const std::set<std::string> file_types = {".npy",  ".npz",         ".csv", ".tsv", ".json", ".txt", ".svg",
                                                     ".html", ".safetensors", ".bin", ".pt",  ".pth"};
    if (!file_types.count(ext)) return;
    const std::string results = std::to_string(count) + " results";
    if (ext == ".npy") {
        const std::string stem = path.substr(0, path.size() - 4);
        throw SettingError("output", "", " " + path + ": " + results +
                                             " do not fit one .npy file: write them to an archive (" + stem +
                                             ".npz) or a folder (" + stem + "/, one NAME.npy each)");
    }
    // A file's name (w.npz, out.csv, r.bin): made into a folder only when asked with a final '/'
    // (an existing file: the caller's "not a directory").
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) return;
    throw SettingError("output", "", " " + path + ": " + results + " in npy format go to a folder, " + path +
                                         "/ (one NAME.npy each; made when missing), or to an npz archive");
}

void write_stdout(std::string_view bytes) {
    std::fflush(stdout);
    write_all(STDOUT_FILENO, bytes, "standard output", true);
}

OutputFile::OutputFile(const std::string& path) : path_(path) {
    buf_.reserve(1 << 16);
    if (const int stream = standard_stream_of(path); stream >= 0) {
        std::fflush(stdout), std::fflush(stderr);
        fd_ = stream, stdout_ = stream == STDOUT_FILENO, in_place_ = true, borrowed_fd_ = true;
        return;
    }
    target_ = follow_links(path, path);
    struct stat st {};
    const bool exists = ::stat(target_.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) throw RuntimeFailure("cannot write " + path + ": is a directory");
    if (exists && !S_ISREG(st.st_mode)) {  // /dev/null, /dev/full, a FIFO: written in place
        fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd_ < 0) throw RuntimeFailure("cannot write " + path + ": " + std::strerror(errno));
        in_place_ = true;
        return;
    }
    // An existing file we may not write stays as it is, even when its folder is writable.
    if (exists && ::access(target_.c_str(), W_OK) != 0)
        throw RuntimeFailure("cannot write " + path + ": " + std::strerror(errno));
    const std::string dir = parent_of(target_);
    const std::string base = target_.substr(target_.rfind('/') == std::string::npos ? 0 : target_.rfind('/') + 1);
    std::string tmpl = temp_pattern(dir, base);
    {
        // Made and recorded with the signals held off: one in between would leave it behind.
        const DeferredSignals deferred;
        fd_ = ::mkostemp(tmpl.data(), O_CLOEXEC);
        if (fd_ < 0)
            throw RuntimeFailure("cannot write " + path + ": " + std::strerror(errno) +
                                 " (creating a temporary file in " + dir + ")");
        temp_ = tmpl;
        try {
            remember_temp(temp_);
        } catch (...) {
            ::close(fd_), ::unlink(temp_.c_str());
            throw;
        }
    }
    before_ = file_id(target_);
    if (exists) {
        if (::fchown(fd_, st.st_uid, st.st_gid) != 0) { /* keep our own owner when we may not give it away */ }
        ::fchmod(fd_, st.st_mode & 07777);
        constexpr long ext_magic = 0xEF53;  // ext2, ext3 and ext4
        struct statfs fs {};
        preallocate_ = ::fstatfs(fd_, &fs) == 0 && fs.f_type == ext_magic;
    } else {
        ::fchmod(fd_, default_file_mode());
    }
}

OutputFile::~OutputFile() {
    if (!committed_) drop();
}

void OutputFile::drop() noexcept {
    if (fd_ >= 0 && !borrowed_fd_) ::close(fd_);
    fd_ = -1;
    if (!temp_.empty()) {
        ::unlink(temp_.c_str());
        forget_temp(temp_);
        temp_.clear();
    }
}

void OutputFile::flush() {
    if (buf_.empty()) return;
    if (fd_ < 0) throw RuntimeFailure("write error: " + path_ + ": already closed");
    put(buf_);
    buf_.clear();
}

void OutputFile::put(std::string_view bytes) {
    if (preallocate_ && written_ + bytes.size() > allocated_) {
        constexpr std::size_t step = std::size_t(4) << 20;  // a few calls for a big file, little to cut back
        const std::size_t end = written_ + bytes.size();
        const std::size_t grow = expected_ >= end ? expected_ - allocated_ : std::max(step, end - allocated_);
        // Refused (no space for the step, a file system without it): plain writes from here.
        if (::fallocate(fd_, 0, off_t(allocated_), off_t(grow)) == 0) allocated_ += grow;
        else preallocate_ = false;
    }
    write_all(fd_, bytes, stdout_ ? "standard output" : path_, stdout_);
    written_ += bytes.size();
}

void OutputFile::write(std::string_view bytes) {
    if (buf_.size() + bytes.size() > (1u << 16)) {
        flush();
        if (bytes.size() >= (1u << 16)) {
            put(bytes);
            return;
        }
    }
    buf_.append(bytes);
}

void OutputFile::close_data() {
    if (fd_ < 0) return;
    flush();
    if (borrowed_fd_) return;
    if (allocated_ > written_ && ::ftruncate(fd_, off_t(written_)) != 0)
        throw RuntimeFailure("write error: " + path_ + ": " + std::strerror(errno));
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw RuntimeFailure("write error: " + path_ + ": " + std::strerror(errno));
}

void OutputFile::commit() {
    close_data();
    Commit c;
    add_to(c);
    c.run();
    mark_committed();
}

void OutputFile::add_to(Commit& c) const {
    if (!temp_.empty()) c.add(temp_, target_, path_, before_);
}

void OutputFile::mark_committed() {
    if (!temp_.empty()) forget_temp(temp_), temp_.clear();
    committed_ = true;
}

namespace {

// Two outputs of one run naming the same file (--svg F -o F; -o DIR with --svg DIR/weights.npy)
// would keep only the one written last: refused before anything is written. Devices and
// FIFOs are written in place, so they may be named twice (--svg /dev/null -o /dev/null); two
// names of one file (hard links) are two entries, each replaced by its own output.
void check_distinct_targets(const std::vector<PendingFile>& files) {
    std::vector<std::pair<EntryKey, std::string>> seen;  // (entry, as given)
    std::string on_stream[3];                            // the first output on stdout, stderr
    bool named[3] = {};                                  // ... and whether one was a path
    const auto is_dash = [](const std::string& path) { return path.empty() || path == "-"; };
    for (const auto& f : files) {
        struct stat st {};
        if (const int stream = standard_stream_of(f.path); stream >= 0) {
            // A path that is standard output (/dev/stdout, the file stdout goes to) next to
            // another output there would glue the two together (--svg /dev/stdout -o -).
            // Several outputs on '-' are the command's own composition (matrices and heatmap).
            if (!on_stream[stream].empty() && (named[stream] || !is_dash(f.path)))
                throw UsageError(on_stream[stream] + " and " + (is_dash(f.path) ? "'-'" : f.path) +
                                 " both write to standard " + (stream == STDOUT_FILENO ? "output" : "error") +
                                 ": send one of them to a file");
            if (on_stream[stream].empty()) on_stream[stream] = is_dash(f.path) ? "'-'" : f.path;
            named[stream] = named[stream] || !is_dash(f.path);
            continue;
        }
        if (::stat(f.path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) continue;
        // Through symbolic links first, dangling ones too, then by the folder's device and
        // inode: another spelling of the path, a symbolic link or a bind mount of the folder.
        const EntryKey key = entry_key(follow_links(f.path, f.path));
        for (const auto& [other, given] : seen)
            if (other == key)
                throw UsageError(given + " and " + f.path + ": two outputs of this run name the same file");
        seen.emplace_back(key, f.path);
    }
}

}  // namespace

void write_files(const std::vector<PendingFile>& files) {
    check_distinct_targets(files);
    // A folder the outputs go into that does not exist yet (-o DIR of several npy files) is
    // staged beside it and appears whole, in the commit (write/staged_folder.hpp).
    std::vector<std::unique_ptr<StagedFolder>> folders;
    const auto staged = [&](const PendingFile& f) -> StagedFolder* {
        if (!f.make_parent || f.path.empty()) return nullptr;
        std::string dir = parent_of(f.path);
        while (dir.size() > 1 && dir.back() == '/') dir.pop_back();  // -o new/: "new//NAME.npy", StagedFolder's "new"
        for (auto& s : folders)
            if (s->dir() == dir) return s.get();
        struct stat st {};
        if (::stat(dir.c_str(), &st) == 0 || errno != ENOENT) return nullptr;
        folders.push_back(std::make_unique<StagedFolder>(dir));
        return folders.back().get();
    };
    auto classify = [](const std::string& path) {  // 0 regular/new file, 1 in place, 2 stdout
        if (const int stream = standard_stream_of(path); stream >= 0) return stream == STDOUT_FILENO ? 2 : 1;
        struct stat st {};
        return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) ? 1 : 0;
    };
    std::vector<std::unique_ptr<OutputFile>> outs;
    Commit c;
    for (int phase = 0; phase < 3; ++phase) {
        // Standard output last, once every file is written and checked as the commit will check
        // it: a failed run writes nothing there (only a rename refused after it, by a process
        // racing this one or a folder that takes no renames, comes later).
        if (phase == 2) {
            for (auto& o : outs) o->add_to(c);
            for (auto& s : folders) s->add_to(c);
            c.check();
        }
        for (const auto& f : files) {
            if (classify(f.path) != phase) continue;
            StagedFolder* folder = staged(f);
            outs.push_back(std::make_unique<OutputFile>(
                folder ? folder->path_of(f.path.substr(f.path.rfind('/') + 1)) : f.path));
            if (!f.text)
                outs.back()->expect_size(f.bytes.size() +
                                         (f.npy_data.rank() > 0 ? f.npy_data.shape.numel() * sizeof(float) : 0));
            outs.back()->write(f.bytes);
            const auto write = [&](std::string_view chunk) { outs.back()->write(chunk); };
            if (f.npy_data.rank() > 0) for_each_npy_row(f.npy_data, write);
            if (f.text) f.text(write);
            if (folder) outs.back()->commit();  // into the staging folder, which only this run sees
            else outs.back()->close_data();
        }
    }
    c.run();
    for (auto& o : outs) o->mark_committed();
    for (auto& s : folders) s->mark_published();
}

}  // namespace detail

void write_text(const std::string& path, std::string_view bytes) {
    detail::write_files({{path == "-" ? "" : path, std::string(bytes)}});
}

}  // namespace attn::io
