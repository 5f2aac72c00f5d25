#include "runtime/signals.hpp"

#include <initializer_list>

namespace attn {

sigset_t asynchronous_signals() noexcept {
    sigset_t set;
    sigfillset(&set);
    for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS}) sigdelset(&set, fault);
    return set;
}

}  // namespace attn
