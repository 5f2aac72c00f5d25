// The pending-temporaries table behind write/temp_files.hpp. A signal handler may run between
// any two instructions of the writer, so the table is fixed storage (no allocation) and a slot
// is published only after its path is complete: the handler reads `used` flags and C strings.
#include "write/temp_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <csignal>
#include <cstring>
#include <string>

#include "attn/error.hpp"
#include "runtime/signals.hpp"

namespace attn::io::detail {

namespace {

struct Slot {
    volatile std::sig_atomic_t used = 0;
    TempKind kind = TempKind::file;
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

// Unlinks the files of a folder with raw system calls: opendir/readdir allocate, which a
// signal handler must not. Passes repeat from the start until one finds nothing to remove,
// since entries removed during a pass may shift the listing.
void remove_files_in(const char* folder) noexcept {
    const int fd = ::open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    alignas(alignof(dirent64)) static char buf[8192];
    for (bool removed = true; removed;) {
        removed = false;
        ::lseek(fd, 0, SEEK_SET);
        for (ssize_t n; (n = ::getdents64(fd, buf, sizeof buf)) > 0;)
            for (ssize_t off = 0; off < n;) {
                const auto* e = reinterpret_cast<const dirent64*>(buf + off);
                off += e->d_reclen;
                if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
                removed |= ::unlinkat(fd, e->d_name, 0) == 0;
            }
    }
    ::close(fd);
}

void on_fatal_signal(int sig) {
    remove_pending_temps();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

}  // namespace

void remember_temp(const std::string& path, TempKind kind) {
    if (path.size() >= PATH_MAX) throw RuntimeFailure("cannot write " + path + ": the path is too long");
    for (auto& s : slots) {
        if (s.used) continue;
        std::memcpy(s.path, path.c_str(), path.size() + 1);
        s.kind = kind;
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
        if (s.used && s.kind == TempKind::file) {
            ::unlink(s.path);
            s.used = 0;
        }
    // Folders last, in two passes: a folder made inside another may come later in the table,
    // and the outer one is only empty once the inner one is gone.
    for (int pass = 0; pass < 2; ++pass)
        for (auto& s : slots) {
            if (!s.used) continue;
            if (s.kind == TempKind::folder_and_files) remove_files_in(s.path);
            if (::rmdir(s.path) == 0 || pass == 1) s.used = 0;
        }
}

DeferredSignals::DeferredSignals() noexcept {
    const sigset_t held = asynchronous_signals();
    pthread_sigmask(SIG_BLOCK, &held, &old_);
}

DeferredSignals::~DeferredSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

std::string temp_pattern(const std::string& dir, const std::string& base) {
    constexpr std::size_t name_max = 255, extra = std::char_traits<char>::length("..attn-XXXXXX");
    // Cut at a byte, not inside a UTF-8 sequence, so the (hidden) name stays valid text.
    std::size_t keep = std::min(base.size(), name_max - extra);
    while (keep > 0 && keep < base.size() && (static_cast<unsigned char>(base[keep]) & 0xC0) == 0x80) --keep;
    return dir + "/." + base.substr(0, keep) + ".attn-XXXXXX";
}

void install_signal_cleanup() {
    struct sigaction bus {};
    bus.sa_handler = on_sigbus;
    sigemptyset(&bus.sa_mask);
    ::sigaction(SIGBUS, &bus, nullptr);
    // A file-size limit (ulimit -f) would kill the process at the first write past it: ignored,
    // the write fails with EFBIG instead and takes the error path (message, temporaries removed).
    ::signal(SIGXFSZ, SIG_IGN);
    // Every signal whose default action ends the process and that a handler may catch.
    const int fatal[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
#ifdef SIGPWR
                         SIGPWR,
#endif
#ifdef SIGSTKFLT
                         SIGSTKFLT,
#endif
    };
    for (int sig : fatal) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup, background job
        struct sigaction sa {};
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        ::sigaction(sig, &sa, nullptr);
    }
}

}  // namespace attn::io::detail
