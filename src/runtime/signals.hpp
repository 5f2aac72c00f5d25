// Which signals a thread may be asked to take: one rule for the worker threads and for the
// moments the main thread must not be interrupted (write/temp_files.hpp, DeferredSignals).
#pragma once
#include <csignal>

namespace attn {

// Every signal but those the kernel raises for a fault of the running thread (SIGSEGV, SIGBUS,
// SIGFPE, SIGILL, SIGTRAP, SIGSYS): the ones another process or the terminal sends, which go
// to any thread not blocking them. (A fault signal must never be blocked: the kernel would
// then end the process by it, without the handler.)
sigset_t asynchronous_signals() noexcept;

}  // namespace attn
