// Internal to src/io: the low-level writers behind write_output.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace attn::io::detail {

// How a path is named in messages: "-" is "<stdin>".
std::string display_name(const std::string& path);

// Writes all bytes to standard output and flushes. A closed pipe (EPIPE) ends the process
// quietly with SIGPIPE, as coreutils do; any other error is a RuntimeFailure.
void write_stdout(std::string_view bytes);

// One file to produce: its final path and its full contents.
struct PendingFile {
    std::string path;
    std::string bytes;
};

// Writes every file to a temporary name next to it, then renames them all into place, so a
// failure leaves no half-written file behind. A path that exists and is not a regular file
// (/dev/null, a FIFO) is written directly. Errors are RuntimeFailure.
void write_files(const std::vector<PendingFile>& files);

}  // namespace attn::io::detail
