// Error types and the process exit codes they map to.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>

namespace attn {

enum ExitCode : int {
    exit_ok = 0,
    exit_runtime = 1,  // write error, zero row sum, numeric failure
    exit_usage = 2,    // unknown/conflicting options, invalid option value, missing input
    exit_input = 3,    // unreadable or malformed file, non-finite value, shape mismatch
};

// Every error attn reports carries the exit code it should end the process with.
// Messages are GNU style: lower-case, no final period; the CLI prefixes "attn: ".
// A NUL byte in a message (a value from a file: "llama\u0000x") is kept as "\0": what() is a C
// string, and the rest of the message was cut off there.
class Error : public std::runtime_error {
public:
    Error(int code, const std::string& message) : std::runtime_error(without_nul(message)), code_(code) {}
    int exit_code() const noexcept { return code_; }

private:
    static std::string without_nul(const std::string& m) {
        if (m.find('\0') == std::string::npos) return m;
        std::string out;
        for (char c : m) {
            if (c) out += c;
            else out += "\\0";
        }
        return out;
    }
    int code_;
};

struct UsageError : Error {
    explicit UsageError(const std::string& m) : Error(exit_usage, m) {}
};
struct InputError : Error {
    explicit InputError(const std::string& m) : Error(exit_input, m) {}
};
struct RuntimeFailure : Error {
    explicit RuntimeFailure(const std::string& m) : Error(exit_runtime, m) {}
};

// A usage error about a setting the caller chose ("format", "output", "html", "torch-kernel").
// The library names the setting, never a command-line flag: the message is `before`, the
// setting, `after`, and a front end puts its own name for the setting in the middle (the CLI
// says "--format", "-o"; see message_with).
class SettingError : public UsageError {
public:
    SettingError(std::string setting, std::string before, std::string after)
        : UsageError(before + setting + after),
          setting_(std::move(setting)),
          before_(std::move(before)),
          after_(std::move(after)) {}
    const std::string& setting() const noexcept { return setting_; }
    // The message with `name` where the setting is named.
    std::string message_with(const std::string& name) const { return before_ + name + after_; }

private:
    std::string setting_, before_, after_;
};

}  // namespace attn
