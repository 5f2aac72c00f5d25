// Internal to src/write and the CLI: the temporary files and folders a run has made but not yet
// published, removed when it fails, a pipe closes or a catchable signal ends it. What cannot be
// caught leaves them (hidden, named .NAME.attn-XXXXXX): SIGKILL (the OOM killer), a fault
// signal (SIGSEGV, SIGABRT), a power cut.
#pragma once
#include <csignal>
#include <string>

namespace attn::io::detail {

// What a pending temporary is: a file, or a staging folder whose files are all attn's (removed
// with them: write/staged_folder.hpp).
enum class TempKind { file, folder_and_files };

// Records a temporary until it is renamed into place or removed. Errors: RuntimeFailure when
// more are pending at once than the fixed table holds.
void remember_temp(const std::string& path, TempKind kind = TempKind::file);
void forget_temp(const std::string& path);

// Removes every pending temporary file, then the pending staging folders with their files
// (a folder inside another first). Async-signal-safe:
// it only reads a fixed table and makes system calls (unlink, rmdir, getdents64).
void remove_pending_temps() noexcept;

// SIGINT, SIGTERM, SIGHUP, SIGQUIT and the other catchable signals that end a process (USR1,
// USR2, ALRM, VTALRM, PROF, XCPU, PWR, STKFLT) remove the pending temporaries, then end the
// process by the same signal (so the shell still sees "killed by SIGINT"). SIGXFSZ is ignored:
// a write past `ulimit -f` fails (EFBIG) and is reported as an error. SIGBUS, which is what reading
// a mapped input raises when another process truncates the file meanwhile, removes them too
// and exits 3 with a message. Called once by main.
void install_signal_cleanup();

// Holds off the asynchronous signals (runtime/signals.hpp: SIGINT, SIGTERM, ...) while it
// lives: for the renames that publish a run's outputs (write/commit.hpp), so that a signal
// arriving meanwhile takes effect after the last one and finds every output replaced rather
// than some; and between making a temporary and recording it. SIGKILL cannot be held off.
class DeferredSignals {
public:
    DeferredSignals() noexcept;
    ~DeferredSignals();
    DeferredSignals(const DeferredSignals&) = delete;
    DeferredSignals& operator=(const DeferredSignals&) = delete;

private:
    sigset_t old_;
};

// The mkstemp/mkdtemp pattern of a temporary beside `base` in `dir`: "dir/.base.attn-XXXXXX",
// with base cut short when the name would pass the 255-byte limit of a file name (a valid
// output name of 243-255 bytes could not be written).
std::string temp_pattern(const std::string& dir, const std::string& base);

}  // namespace attn::io::detail
