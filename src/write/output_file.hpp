// Internal to src/read, src/write and the CLI: the one safe writer behind every command's output.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/tensor.hpp"
#include "write/commit.hpp"

namespace attn::io {
struct Item;
struct OutputOptions;
}  // namespace attn::io

namespace attn::io::detail {

// Writes all bytes to standard output and flushes. A closed pipe (EPIPE) removes every
// temporary file still pending and ends the process quietly with SIGPIPE, as coreutils do
// (the same for every command); any other error is a RuntimeFailure.
void write_stdout(std::string_view bytes);
// The same end for a command that printed through stdio (bench) and found standard output
// closed: its temporaries removed, the process ended by SIGPIPE.
[[noreturn]] void die_of_sigpipe();

// Whether output to `path` reaches a terminal: standard output ("" or "-") while it is one, or a
// path naming a terminal (/dev/stdout on a terminal, /dev/tty).
bool output_is_terminal(const std::string& path);

// Binary output (npy) bound for a terminal (output_is_terminal): a UsageError, before anything
// is written.
void refuse_binary_on_terminal(const std::string& path, const char* format);  // format: "npy" or "npz"

// `count` (> 1) npy files for `path`, which is neither an existing folder nor DIR/: the folder
// made unless `path` ends in the extension of a file attn reads or writes (x.npy, w.npz,
// out.csv, r.bin), then a UsageError naming the remedies (an archive, a folder), before
// anything is written.
void refuse_npy_name_for_several(const std::string& path, std::size_t count);

// One output destination, written as a stream and published all at once:
//  - "" or "-": standard output, written directly (so a caller streaming to it must have
//    checked beforehand that the whole output can be produced); so is a path naming the file
//    standard output (or error) is open on, e.g. /dev/stdout redirected to a file;
//  - an existing device, FIFO or socket (anything not a regular file, /dev/null, /dev/full):
//    opened and written in place, never replaced;
//  - otherwise a temporary file made with mkstemp in the target's own folder (a symbolic link
//    is followed to the file it names, which is what gets replaced, unless another user planted
//    it in a shared folder: write/output_target.hpp), given the existing file's mode (or
//    0666 & ~umask for a new file) and renamed over the target by commit(), or with the run's
//    other outputs by a Commit (write/commit.hpp).
// Destroyed without commit() (an exception, an error), it removes its temporary file: a
// failed run leaves nothing behind and an existing target untouched. Errors: RuntimeFailure.
class OutputFile {
public:
    explicit OutputFile(const std::string& path);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    void write(std::string_view bytes);  // buffered (64 KiB)
    // The file's whole size, when known before the writes: preallocated in one step, exactly,
    // so that nothing is cut back at close (an ftruncate of the extra blocks: 0.2 ms a file).
    void expect_size(std::size_t bytes) { expected_ = bytes; }
    void close_data();                   // every byte written and the file closed, not yet renamed
    void commit();                       // close_data(), then renamed into place (a Commit of its own)
    // For a Commit of several outputs: the rename this one needs (none when written in
    // place), added after close_data(); mark_committed() once the Commit has run.
    void add_to(Commit& c) const;
    void mark_committed();

    bool is_stdout() const { return stdout_; }
    bool in_place() const { return in_place_; }

private:
    void flush();
    void put(std::string_view bytes);  // unbuffered, at the end of what is written
    void drop() noexcept;
    std::string path_;    // as given (for messages)
    std::string target_;  // after following symbolic links
    std::string temp_;    // "" when written in place
    FileId before_;       // what target_ was when the run began to write it
    std::string buf_;
    int fd_ = -1;
    bool stdout_ = false, in_place_ = false, committed_ = false;
    bool borrowed_fd_ = false;  // standard output or error: written, never closed
    // Replacing a file on ext4: the temporary file's blocks are allocated ahead of the
    // writes (fallocate), since ext4 renaming a file with delayed allocations over another
    // first starts writing it back (auto_da_alloc), in the rename: measured 8-12 ms for a
    // 12.8 MB csv, 0.6-1 ms with the blocks allocated. Cut back to written_ when closed.
    bool preallocate_ = false;
    std::size_t written_ = 0, allocated_ = 0, expected_ = 0;
};

// One file to produce: its path ("" = standard output) and its full contents. make_parent:
// the folder holding it may be missing; it is then staged and appears whole, with all of the
// files that go into it (write/staged_folder.hpp).
// npy_data: when it views a tensor, its rows as '<f4' follow `bytes` (the .npy header),
// written straight from the tensor's storage. text: when set, called after `bytes` are
// written to produce the rest in chunks (csv/tsv of tensors, formatted as they are written).
// What either refers to must outlive write_files.
struct PendingFile {
    std::string path;
    std::string bytes;
    bool make_parent = false;
    TensorView npy_data = {};
    std::function<void(const std::function<void(std::string_view)>& sink)> text = {};
};

// The .npy header (magic, version, dict, padding) of a float32 C-order file holding t;
// npy_bytes(t) is this header followed by the rows.
std::string npy_header(const TensorView& t);
// Hands the rows of t, as '<f4' bytes, to `row` in C order; rows adjacent in memory as one span.
void for_each_npy_row(const TensorView& t, const std::function<void(std::string_view)>& row);

// Writes every output of one command, all or nothing as far as the system allows: regular
// files into temporaries first, then devices/FIFOs in place, then standard output, and only
// when all of that succeeded are the temporaries renamed into place, together, by one Commit
// (write/commit.hpp). Errors: RuntimeFailure.
void write_files(const std::vector<PendingFile>& files);

// What write_output would write (printer.cpp): the rendered items as pending files.
std::vector<PendingFile> output_files(const std::vector<Item>& items, const OutputOptions& opt);

}  // namespace attn::io::detail
