// Internal to src/write and the CLI: the temporary files and folders a run has made but not yet
// published, so that no way of ending the process leaves them behind.
#pragma once
#include <string>

namespace attn::io::detail {

// What a pending temporary is: a file; a folder made for an output (removed only when empty);
// a staging folder whose files are all attn's (removed with them: write/staged_folder.hpp).
enum class TempKind { file, folder, folder_and_files };

// Records a temporary until it is renamed into place or removed. Errors: RuntimeFailure when
// more are pending at once than the fixed table holds.
void remember_temp(const std::string& path, TempKind kind = TempKind::file);
void forget_temp(const std::string& path);

// Removes every pending temporary file, then the pending folders (a staging folder with its
// files; any other only when empty, after any pending folder inside it). Async-signal-safe:
// it only reads a fixed table and makes system calls (unlink, rmdir, getdents64).
void remove_pending_temps() noexcept;

// SIGINT, SIGTERM, SIGHUP, SIGQUIT and the other catchable signals that end a process (USR1,
// USR2, ALRM, VTALRM, PROF, XCPU, PWR, STKFLT) remove the pending temporaries, then end the
// process by the same signal (so the shell still sees "killed by SIGINT"). SIGXFSZ is ignored:
// a write past `ulimit -f` fails (EFBIG) and is reported as an error. SIGBUS, which is what reading
// a mapped input raises when another process truncates the file meanwhile, removes them too
// and exits 3 with a message. Called once by main.
void install_signal_cleanup();

// The mkstemp/mkdtemp pattern of a temporary beside `base` in `dir`: "dir/.base.attn-XXXXXX",
// with base cut short when the name would pass the 255-byte limit of a file name (a valid
// output name of 243-255 bytes could not be written).
std::string temp_pattern(const std::string& dir, const std::string& base);

}  // namespace attn::io::detail
