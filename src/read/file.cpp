// Files in: reading whole inputs (bounded; a .npy stream stops at the size its header
// promises), mapping them, labels, and line ends. The writers are in write/output_file.cpp.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "read/content_hint.hpp"
#include "read/input_bytes.hpp"
#include "runtime/system_memory.hpp"
#include "runtime/utf8.hpp"
#include "runtime/parallel.hpp"

namespace attn::io {

namespace {

// Inputs are read whole; beyond max_input_bytes (2 GiB) reading stops, so an endless stream
// such as /dev/zero cannot exhaust memory.
using detail::max_input_bytes;

InputError too_large_error(const std::string& name) { return InputError(name + ": input larger than 2 GiB is not supported"); }

InputError nul_byte_error(std::string_view text, std::size_t offset, const std::string& name,
                          Content content = Content::text_or_npy) {
    const std::size_t line_start = offset == 0 ? 0 : text.rfind('\n', offset - 1) + 1;  // npos + 1 == 0
    const std::size_t line = 1 + std::size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(offset), '\n'));
    return InputError(name + ":" + std::to_string(line) + ":" + std::to_string(offset - line_start + 1) +
                      (content == Content::text ? ": a NUL byte: binary data, not text"
                                                : ": a NUL byte: binary data is neither text nor .npy") +
                      detail::content_hint(text));
}

// .npy: the total size the bytes read so far promise, as soon as the header is complete, so
// that a stream is not read on (up to 2 GiB) past a wrong header or past the data. Throws the
// npy reader's error when the header is already known to be wrong; nullopt when more bytes
// are needed to tell.
std::optional<std::size_t> npy_expected_size(std::string_view prefix, const std::string& name) {
    if (prefix.size() < 8) return std::nullopt;
    const int major = static_cast<unsigned char>(prefix[6]);
    if (prefix.substr(0, 6) != "\x93NUMPY" || major < 1 || major > 3 || prefix[7] != 0)
        parse_npy(prefix.substr(0, 8), name);  // throws: bad magic or version
    const std::size_t preamble = major == 1 ? 10 : 12;
    if (prefix.size() < preamble) return std::nullopt;
    std::size_t header_len = 0;
    for (std::size_t i = preamble; i-- > 8;) header_len = header_len * 256 + static_cast<unsigned char>(prefix[i]);
    if (header_len > 65536) parse_npy(prefix, name);  // throws: header too long
    if (prefix.size() < preamble + header_len) return std::nullopt;
    try {
        parse_npy(prefix.substr(0, preamble + header_len), name);
    } catch (const InputError& e) {
        // A valid header without its data: "... truncated data: shape (r, c) needs N bytes, ..."
        const std::string msg = e.what();
        const std::size_t at = msg.find(" needs ");
        if (msg.find("truncated data") == std::string::npos || at == std::string::npos) throw;
        return preamble + header_len + std::size_t(std::strtoull(msg.c_str() + at + 7, nullptr, 10));
    }
    return preamble + header_len;
}

// The first bytes of an archive of named tensors: a zip (an .npz, a torch.save file; an empty
// zip is its end record alone) or a legacy torch.save pickle stream (PROTO 2, LONG1).
constexpr std::string_view archive_magics[] = {"PK\x03\x04", "PK\x05\x06", "\x80\x02\x8a"};

// Whether bytes begin as an archive does, as far as they go.
bool may_be_archive(std::string_view bytes) {
    for (const std::string_view magic : archive_magics)
        if (!bytes.empty() && magic.starts_with(bytes.substr(0, magic.size()))) return true;
    return false;
}

// `archives`: standard input, which has no file name to tell an archive by, may hold one
// (detail::is_archive): its NUL bytes are data, as an .npy's are.
std::string read_fd(int fd, const std::string& name, bool archives = false, Content content = Content::text_or_npy) {
    // A regular file (standard input too) tells its size: one over the limit is refused
    // before a byte is read.
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        const off_t at = ::lseek(fd, 0, SEEK_CUR);
        if (at >= 0 && st.st_size > at && std::size_t(st.st_size - at) > max_input_bytes) throw too_large_error(name);
    }
    std::string out;
    char buf[1 << 16];
    std::optional<std::size_t> npy_size;
    std::size_t extra = 0;  // bytes beyond a complete .npy: counted, not kept
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            throw InputError(name + ": " + std::strerror(errno));
        }
        if (out.size() + extra + std::size_t(n) > max_input_bytes) throw too_large_error(name);
        // A stream of unknown size, checked as it grows, doubling up to the limit, never past it
        // (4 GiB of capacity for a stream refused at 2 GiB).
        if (out.size() + std::size_t(n) > out.capacity())
            reserve_checked(out, std::min(max_input_bytes, std::max(out.size() + std::size_t(n), 2 * out.capacity())));
        if (npy_size && out.size() + std::size_t(n) > *npy_size) {
            const std::size_t keep = *npy_size - out.size();
            out.append(buf, keep);
            extra += std::size_t(n) - keep;
            break;
        }
        const std::size_t start = out.size();
        out.append(buf, std::size_t(n));
        const bool npy = content == Content::text_or_npy && static_cast<unsigned char>(out[0]) == 0x93;
        if (npy && !npy_size) {
            npy_size = npy_expected_size(out, name);
            // A header declaring more than the limit is refused as it is read, not 2 GiB later
            if (npy_size && *npy_size > max_input_bytes)
                throw InputError(name + ": its .npy header declares " + std::to_string(*npy_size) +
                                 " bytes: input larger than 2 GiB is not supported");
            if (npy_size) reserve_checked(out, *npy_size);  // the size promised
            if (npy_size && out.size() > *npy_size) {
                extra = out.size() - *npy_size;
                out.resize(*npy_size);
                break;
            }
        }
        // Text never holds a NUL byte: stop at the first one instead of slurping a binary
        // stream (/dev/zero, /dev/urandom) up to the size limit. .npy data may hold NULs.
        if (!npy && !(archives && may_be_archive(out)))
            if (const std::size_t nul = out.find('\0', start); nul != std::string::npos)
                throw nul_byte_error(out, nul, name, content);
    }
    if (extra > 0) {  // stop at once: a regular file's size tells how many; a stream's, at least these
        const bool exact = S_ISREG(st.st_mode) && std::size_t(st.st_size) > *npy_size;
        throw InputError(name + ": " + (exact ? std::to_string(std::size_t(st.st_size) - *npy_size)
                                              : "at least " + std::to_string(extra)) +
                         " unexpected bytes after the array data");
    }
    return out;
}

}  // namespace

std::string detail::display_name(const std::string& path) {
    return path == "-" ? "<stdin>" : path.empty() ? "'' (an empty file name)" : path;
}

bool detail::is_archive(std::string_view bytes) {
    for (const std::string_view magic : archive_magics)
        if (bytes.starts_with(magic)) return true;
    return false;
}

bool detail::is_stream(const std::string& path) {
    // A descriptor's name (/dev/stdin, /dev/fd/N) is no file name, even for a redirected file.
    if (path == "-" || path == "/dev/stdin" || path.starts_with("/dev/fd/") || path.starts_with("/proc/self/fd/"))
        return true;
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

std::string detail::read_stream(const std::string& path) {
    if (path == "-") return read_fd(STDIN_FILENO, display_name(path), true);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(display_name(path) + ": " + std::strerror(errno));
    try {
        std::string bytes = read_fd(fd, path, true);
        ::close(fd);
        return bytes;
    } catch (...) {
        ::close(fd);
        throw;
    }
}

std::string read_file(const std::string& path, Content content) {
    if (path == "-") return read_fd(STDIN_FILENO, detail::display_name(path), false, content);
    // Labels, ids, lengths and texts are read whole: one result of standard input is a tensor's.
    if (path.starts_with("-:"))
        throw UsageError(path + ": -:NAME selects a tensor input's result on standard input; this input reads a "
                         "whole file, or '-'");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(detail::display_name(path) + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        ::close(fd);
        throw InputError(path + ": is a directory");
    }
    try {
        std::string bytes = read_fd(fd, path, false, content);
        ::close(fd);
        return bytes;
    } catch (...) {
        ::close(fd);
        throw;
    }
}

namespace {
bool mapping_allowed = true;
}  // namespace

void detail::InputBytes::allow_mapping(bool allowed) noexcept { mapping_allowed = allowed; }

detail::MappedFile::MappedFile(const std::string& path, bool populate) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(detail::display_name(path) + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw InputError(path + ": " + (S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file"));
    }
    size_ = std::size_t(st.st_size);
    if (size_ > 0) {
        void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
        const int err = errno;
        ::close(fd);
        if (p == MAP_FAILED) throw InputError(path + ": " + std::strerror(err));
        data_ = static_cast<const char*>(p);
    } else {
        ::close(fd);
    }
}

std::unique_ptr<detail::PositionalFile> detail::PositionalFile::open(const std::string& path) {
    if (path == "-" || !mapping_allowed) return nullptr;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return nullptr;  // the reader that follows names what is wrong
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        std::size_t(st.st_size) > max_input_bytes) {
        ::close(fd);
        return nullptr;
    }
    return std::unique_ptr<PositionalFile>(new PositionalFile(fd, std::size_t(st.st_size), display_name(path)));
}

detail::PositionalFile::~PositionalFile() { ::close(fd_); }

void detail::PositionalFile::read(std::size_t offset, std::size_t n, void* out) const {
    char* to = static_cast<char*>(out);
    while (n > 0) {
        const ssize_t got = ::pread(fd_, to, std::min<std::size_t>(n, std::size_t(1) << 30), off_t(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw InputError(name_ + ": " + std::strerror(errno));
        if (got == 0) throw InputError(name_ + ": the file ended at byte " + std::to_string(offset) + " while it was read");
        to += got, offset += std::size_t(got), n -= std::size_t(got);
    }
}

detail::MappedFile::~MappedFile() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
}

std::pair<char*, std::size_t> detail::MappedFile::release_writable() noexcept {
    char* start = const_cast<char*>(data_);
    if (!start || ::mprotect(start, size_, PROT_READ | PROT_WRITE) != 0) return {nullptr, 0};
    const std::size_t size = size_;
    data_ = nullptr;
    size_ = 0;
    return {start, size};
}

void detail::drop_mapped_pages(const void* begin, std::size_t n) noexcept {
    const std::uintptr_t page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
    const std::uintptr_t from = (std::uintptr_t(begin) + page - 1) / page * page;
    const std::uintptr_t to = (std::uintptr_t(begin) + n) / page * page;
    if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

void detail::drop_read_block(const char* base, std::size_t size, std::size_t begin, std::size_t end) noexcept {
    constexpr std::size_t fault_around = std::size_t(64) << 10;
    begin = begin > fault_around ? begin - fault_around : 0;
    end = std::min(size, end + fault_around);
    if (end > begin) drop_mapped_pages(base + begin, end - begin);
}

std::pair<char*, std::size_t> detail::InputBytes::release_writable_mapping() noexcept {
    return map_ ? map_->release_writable() : std::pair<char*, std::size_t>{nullptr, 0};
}

detail::InputBytes::InputBytes(const std::string& path, bool keep_pages) {
    // Regular files of a known, non-zero size up to the input limit are mapped; anything
    // else (standard input, FIFOs, devices, empty files, errors) goes through read_file,
    // which gives every message.
    struct stat st {};
    if (path == "-" || !mapping_allowed || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size <= 0 || std::size_t(st.st_size) > max_input_bytes) {
        stream_ = is_stream(path);
        read_ = stream_ ? read_stream(path) : read_file(path);
        return;
    }
    // Pages are faulted in on first touch, by the threads that read them (a text's scan below,
    // an .npy's scan or conversion), never all at once here: an .npy that is converted gives
    // its pages back block by block, and the peak stays one copy of the data.
    map_ = std::make_unique<MappedFile>(path, false);
    // As read_fd: text never holds a NUL byte (.npy data may).
    const std::string_view bytes = map_->bytes();
    if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) != 0x93) {
        const TextBytes scan = scan_text_bytes(bytes, !keep_pages);
        if (scan.first_nul != std::string_view::npos) throw nul_byte_error(bytes, scan.first_nul, path);
        lone_cr_ = scan.lone_cr;
    }
}

namespace {

// Whether a CR in text[begin, end) is lone (the byte after it may lie past end).
bool has_lone_cr_in(std::string_view text, std::size_t begin, std::size_t end) {
    const std::string_view part = text.substr(0, end);
    for (std::size_t i = part.find('\r', begin); i != std::string_view::npos; i = part.find('\r', i + 1))
        if (i + 1 == text.size() || text[i + 1] != '\n') return true;
    return false;
}

}  // namespace

bool detail::has_lone_cr(std::string_view text) { return has_lone_cr_in(text, 0, text.size()); }

detail::TextBytes detail::scan_text_bytes(std::string_view text, bool drop) {
    // Slices of 1 MiB on all threads, each looked at twice while it is in cache.
    constexpr std::size_t slice = std::size_t(1) << 20;
    const std::size_t slices = (text.size() + slice - 1) / slice;
    std::vector<TextBytes> found(slices);
    parallel_for(slices, [&](std::size_t k) {
        const std::size_t begin = k * slice, end = std::min(text.size(), begin + slice);
        const std::size_t nul = text.substr(0, end).find('\0', begin);
        found[k] = {nul, has_lone_cr_in(text, begin, end)};
        if (drop) drop_read_block(text.data(), text.size(), begin, end);
    });
    TextBytes all;
    for (const TextBytes& f : found) {
        all.first_nul = std::min(all.first_nul, f.first_nul);
        all.lone_cr |= f.lone_cr;
    }
    return all;
}

std::string detail::lone_cr_to_lf(std::string_view text) {
    std::string out(text);
    for (std::size_t i = 0; i < out.size(); ++i)
        if (out[i] == '\r' && (i + 1 == out.size() || out[i + 1] != '\n')) out[i] = '\n';
    return out;
}

std::string read_text_file(const std::string& path) {
    std::string text = read_file(path);
    if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
    return text;
}

std::vector<std::string> read_labels(const std::string& path) {
    std::string text = read_text_file(path);
    if (!text.empty() && static_cast<unsigned char>(text[0]) == 0x93)  // read_file lets an .npy's bytes through
        throw InputError(detail::display_name(path) + ": an .npy file, not labels (one label a line, as text)");
    if (detail::has_lone_cr(text)) text = detail::lone_cr_to_lf(text);
    std::vector<std::string> labels;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + pos, end - pos);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.remove_suffix(1);
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
        labels.push_back(printable_utf8(line));  // labels cannot drive the terminal
        pos = end + 1;
    }
    while (!labels.empty() && labels.back().empty()) labels.pop_back();
    return labels;
}

}  // namespace attn::io
