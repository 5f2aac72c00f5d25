// Files in and out: reading whole inputs (bounded), labels, format recognition, and the
// all-or-nothing writers behind write_output.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "io/output_file.hpp"

namespace attn::io {

namespace {

// Inputs are read whole; beyond this size (2 GiB) reading stops, so an endless stream such
// as /dev/zero cannot exhaust memory.
constexpr std::size_t max_input_bytes = std::size_t(1) << 31;

InputError nul_byte_error(const std::string& text, std::size_t offset, const std::string& name) {
    const std::size_t line_start = offset == 0 ? 0 : text.rfind('\n', offset - 1) + 1;  // npos + 1 == 0
    const std::size_t line = 1 + std::size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(offset), '\n'));
    return InputError(name + ":" + std::to_string(line) + ":" + std::to_string(offset - line_start + 1) +
                      ": a NUL byte: binary data is neither text nor .npy");
}

std::string read_fd(int fd, const std::string& name) {
    std::string out;
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            throw InputError(name + ": " + std::strerror(errno));
        }
        if (out.size() + std::size_t(n) > max_input_bytes)
            throw InputError(name + ": input larger than 2 GiB is not supported");
        const std::size_t start = out.size();
        out.append(buf, std::size_t(n));
        // Text never holds a NUL byte: stop at the first one instead of slurping a binary
        // stream (/dev/zero, /dev/urandom) up to the size limit. .npy data may hold NULs.
        if (static_cast<unsigned char>(out[0]) != 0x93)
            if (const std::size_t nul = out.find('\0', start); nul != std::string::npos) throw nul_byte_error(out, nul, name);
    }
    return out;
}

}  // namespace

std::string detail::display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::string read_file(const std::string& path) {
    if (path == "-") return read_fd(STDIN_FILENO, detail::display_name(path));
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        ::close(fd);
        throw InputError(path + ": is a directory");
    }
    try {
        std::string bytes = read_fd(fd, path);
        ::close(fd);
        return bytes;
    } catch (...) {
        ::close(fd);
        throw;
    }
}

std::vector<std::string> read_labels(const std::string& path) {
    const std::string text = read_file(path);
    std::vector<std::string> labels;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + pos, end - pos);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.remove_suffix(1);
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
        labels.emplace_back(line);
        pos = end + 1;
    }
    while (!labels.empty() && labels.back().empty()) labels.pop_back();
    return labels;
}

// ---- writers ---------------------------------------------------------------------------
namespace detail {

void write_stdout(std::string_view bytes) {
    std::fflush(stdout);
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(STDOUT_FILENO, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EPIPE) {  // the reader went away (| head): end quietly, like coreutils
                std::signal(SIGPIPE, SIG_DFL);
                std::raise(SIGPIPE);
                std::_Exit(141);
            }
            throw RuntimeFailure(std::string("write error: standard output: ") + std::strerror(errno));
        }
        done += std::size_t(n);
    }
}

namespace {

void write_all(int fd, const std::string& bytes, const std::string& path) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw RuntimeFailure("write error: " + path + ": " + std::strerror(errno));
        }
        done += std::size_t(n);
    }
}

bool is_special_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

mode_t default_file_mode() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

// A path that exists and is not a regular file (/dev/null, a FIFO): written in place.
void write_in_place(const PendingFile& f) {
    const int fd = ::open(f.path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw RuntimeFailure("cannot write " + f.path + ": " + std::strerror(errno));
    try {
        write_all(fd, f.bytes, f.path);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
}

// Where the new file goes: through a symbolic link, the file it points to, not the link.
std::string rename_target(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
        if (char* real = ::realpath(path.c_str(), nullptr)) {
            std::string target = real;
            std::free(real);
            return target;
        }
    return path;
}

}  // namespace

void write_files(const std::vector<PendingFile>& files) {
    // temps[i] / targets[i]: file i's temporary and final names ("" when written in place)
    std::vector<std::string> temps(files.size()), targets(files.size());
    try {
        for (std::size_t i = 0; i < files.size(); ++i) {
            const PendingFile& f = files[i];
            struct stat st {};
            if (::stat(f.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
                throw RuntimeFailure("cannot write " + f.path + ": is a directory");
            if (is_special_file(f.path)) {
                write_in_place(f);
                continue;
            }
            targets[i] = rename_target(f.path);
            std::string tmpl = targets[i] + ".tmp.XXXXXX";
            const int fd = ::mkstemp(tmpl.data());
            if (fd < 0) throw RuntimeFailure("cannot write " + f.path + ": " + std::strerror(errno));
            temps[i] = tmpl;
            try {
                write_all(fd, f.bytes, f.path);
                ::fchmod(fd, default_file_mode());
            } catch (...) {
                ::close(fd);
                throw;
            }
            if (::close(fd) != 0) throw RuntimeFailure("write error: " + f.path + ": " + std::strerror(errno));
        }
        for (std::size_t i = 0; i < files.size(); ++i) {
            if (temps[i].empty()) continue;
            if (::rename(temps[i].c_str(), targets[i].c_str()) != 0)
                throw RuntimeFailure("cannot write " + files[i].path + ": " + std::strerror(errno));
            temps[i].clear();
        }
    } catch (...) {
        for (const auto& t : temps)
            if (!t.empty()) ::unlink(t.c_str());
        throw;
    }
}

}  // namespace detail

void write_text(const std::string& path, std::string_view bytes) {
    if (path.empty() || path == "-") detail::write_stdout(bytes);
    else detail::write_files({{path, std::string(bytes)}});
}

}  // namespace attn::io
