// The pending-temporaries table behind io/temp_files.hpp. A signal handler may run between
// any two instructions of the writer, so the table is fixed storage (no allocation) and a slot
// is published only after its path is complete: the handler reads `used` flags and C strings.
#include "io/temp_files.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <climits>
#include <csignal>
#include <cstring>

#include "attn/error.hpp"

namespace attn::io::detail {

namespace {

struct Slot {
    volatile std::sig_atomic_t used = 0;
    bool is_folder = false;
    char path[PATH_MAX] = {};
};

// A run has at most a handful of outputs (-o, --svg, --html, --heatmap files) at once.
std::array<Slot, 32> slots;

// A mapped input cut short by another process while attn reads it: the page past the new
// end raises SIGBUS. That is bad input, not a crash: say so and exit 3.
void on_sigbus(int) {
    static constexpr char message[] = "attn: an input file was truncated while it was being read\n";
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, message, sizeof message - 1);
    remove_pending_temps();
    ::_exit(3);
}

void on_fatal_signal(int sig) {
    remove_pending_temps();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

}  // namespace

void remember_temp(const std::string& path, bool is_folder) {
    if (path.size() >= PATH_MAX) throw RuntimeFailure("cannot write " + path + ": the path is too long");
    for (auto& s : slots) {
        if (s.used) continue;
        std::memcpy(s.path, path.c_str(), path.size() + 1);
        s.is_folder = is_folder;
        std::atomic_signal_fence(std::memory_order_seq_cst);  // the path is whole before the slot is live
        s.used = 1;
        return;
    }
    throw RuntimeFailure("cannot write " + path + ": too many outputs pending at once");
}

void forget_temp(const std::string& path) {
    for (auto& s : slots)
        if (s.used && path == s.path) {
            s.used = 0;
            return;
        }
}

void remove_pending_temps() noexcept {
    for (auto& s : slots)
        if (s.used && !s.is_folder) {
            ::unlink(s.path);
            s.used = 0;
        }
    for (auto& s : slots)  // folders last: they are removed only once empty
        if (s.used) {
            ::rmdir(s.path);
            s.used = 0;
        }
}

void install_signal_cleanup() {
    struct sigaction bus {};
    bus.sa_handler = on_sigbus;
    sigemptyset(&bus.sa_mask);
    ::sigaction(SIGBUS, &bus, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup, background job
        struct sigaction sa {};
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        ::sigaction(sig, &sa, nullptr);
    }
}

}  // namespace attn::io::detail
