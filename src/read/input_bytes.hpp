// Internal to src/read (display_name also to the CLI): the bytes of one input, mapped when it is a regular file (no copy, and
// memory the kernel can drop and reload), read whole otherwise (standard input, pipes).
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace attn::io::detail {

// The most bytes one input may hold, 2 GiB: a file, a stream, an npz member, a tensor of a
// model file read as an input (README: Limits).
inline constexpr std::size_t max_input_bytes = std::size_t(1) << 31;

// How a path is named in messages: "-" is "<stdin>".
std::string display_name(const std::string& path);

// Whether bytes are an archive that holds named tensors: a zip (an .npz or a torch.save
// file) or a legacy torch.save pickle stream.
bool is_archive(std::string_view bytes);
// Whether a path is a stream: standard input ("-"), or a pipe, FIFO or device given by name
// (/dev/stdin, <(...)'s /dev/fd/63). Its name tells no format, and it can be read only once.
bool is_stream(const std::string& path);
// A stream whole, as read_file reads it, but an archive's bytes are let through (a file's
// name tells an archive; a stream has only its bytes).
std::string read_stream(const std::string& path);

// Old Mac line ends: a CR not followed by LF ends a line, as LF and CRLF do. The text
// readers see them as LF.
bool has_lone_cr(std::string_view text);
std::string lone_cr_to_lf(std::string_view text);

// A regular file mapped read-only (an empty file: no mapping, empty bytes). Errors:
// InputError "PATH: ..." (missing, a directory, not a regular file, mmap failing).
// populate: fault every page in at once (for inputs read whole), else on first touch (model
// files, of which one tensor is read).
class MappedFile {
public:
    explicit MappedFile(const std::string& path, bool populate = false);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    std::string_view bytes() const noexcept { return {data_ ? data_ : "", size_}; }
    // Makes the mapping writable, copy-on-write (the file never changes), and gives it up:
    // {start, size}, to be unmapped by the new owner. {nullptr, 0} (and still owned here) when
    // the system refuses the writable mapping.
    std::pair<char*, std::size_t> release_writable() noexcept;

private:
    const char* data_ = nullptr;
    std::size_t size_ = 0;
};

// A regular file of a known, non-zero size within the input limit (the files InputBytes maps,
// while mapping is allowed), read at offsets by any thread (pread): blocks of a large input
// go through a buffer of each thread's instead of a mapping, whose first touches cost page
// faults and whose pages must be given back after.
class PositionalFile {
public:
    // nullptr for anything else (standard input, pipes, devices, empty or missing files):
    // read those as before, with their messages.
    static std::unique_ptr<PositionalFile> open(const std::string& path);
    ~PositionalFile();
    PositionalFile(const PositionalFile&) = delete;
    PositionalFile& operator=(const PositionalFile&) = delete;
    std::size_t size() const noexcept { return size_; }
    // Bytes [offset, offset + n) into `out`. InputError "PATH: ..." when the system fails the
    // read or the file ends early (it shrank while read).
    void read(std::size_t offset, std::size_t n, void* out) const;

private:
    PositionalFile(int fd, std::size_t size, std::string name) : fd_(fd), size_(size), name_(std::move(name)) {}
    int fd_;
    std::size_t size_;
    std::string name_;  // display_name's
};

// Gives back the whole pages of a read-only file mapping that lie in [begin, begin + n): they
// leave the process's memory and are read from the file again if touched. Advice: harmless
// when it fails.
void drop_mapped_pages(const void* begin, std::size_t n) noexcept;
// drop_mapped_pages for a block [begin, end) of a mapping of `size` bytes at `base` that one
// of several threads has finished reading, and the 64 KiB either side: the kernel maps the
// pages of a fault's whole 64 KiB window (fault-around), so the block's first and last faults
// may have mapped again pages of a neighbouring block that was already dropped, and they
// would stay (measured: 2 to 9 MiB more at the peak of a 64 MiB mask, varying from run to run).
void drop_read_block(const char* base, std::size_t size, std::size_t begin, std::size_t end) noexcept;

// What a text input must be checked for, found in one pass by all threads: the offset of
// its first NUL byte (npos: none) and whether it has a lone CR (write/output_file.hpp's
// has_lone_cr).
struct TextBytes {
    std::size_t first_nul = std::string_view::npos;
    bool lone_cr = false;
};
// `drop`: the text is a mapping whose pages are given back once scanned (drop_mapped_pages).
TextBytes scan_text_bytes(std::string_view text, bool drop = false);

class InputBytes {
public:
    // Throws InputError with read_file's messages (missing file, directory, NUL byte in
    // text, more than 2 GiB).
    // A mapped file's pages are faulted in on first touch. keep_pages false: a text's pages
    // are dropped after its scan (a mask, read block by block and its pages dropped as they
    // are packed).
    explicit InputBytes(const std::string& path, bool keep_pages = true);
    InputBytes(const InputBytes&) = delete;
    InputBytes& operator=(const InputBytes&) = delete;

    std::string_view view() const noexcept { return map_ ? map_->bytes() : std::string_view(read_); }
    bool mapped() const noexcept { return map_ != nullptr; }
    // Read from a stream (is_stream): an archive is recognised by its bytes.
    bool stream() const noexcept { return stream_; }
    // For a mapped text input (not .npy): whether it has a lone CR, found with the NUL check.
    bool lone_cr() const noexcept { return lone_cr_; }
    // MappedFile::release_writable of the mapping ({nullptr, 0} when not mapped); view() is
    // then empty when it succeeded.
    std::pair<char*, std::size_t> release_writable_mapping() noexcept;

    // Test hook: false makes every InputBytes read its file instead of mapping it.
    static void allow_mapping(bool allowed) noexcept;

private:
    std::unique_ptr<MappedFile> map_;
    std::string read_;  // when not mapped
    bool lone_cr_ = false;
    bool stream_ = false;
};

}  // namespace attn::io::detail
