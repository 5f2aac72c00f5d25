// libFuzzer harness: the command line. The input is split at NUL bytes into argv; the first
// byte picks the command (attend, softmax, matmul, random, example). It runs in a sandbox
// folder holding small inputs (x.txt, q.txt, ...), with standard input empty and standard
// output captured. Invariants: no crash or UB; only attn::Error escapes (exit 1, 2 or 3);
// a failed run wrote nothing to standard output and left no new file behind.
// Guards keep each run small: no '/' in arguments (files stay in the sandbox), for `random`
// no number of more than 3 digits, no --count and at most 2 dimensions; no --threads.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <iostream>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "cli/commands.hpp"

namespace {

std::set<std::string> listing() {
    std::set<std::string> names;
    if (DIR* d = ::opendir(".")) {
        while (dirent* e = ::readdir(d)) names.insert(e->d_name);
        ::closedir(d);
    }
    return names;
}

void put(const char* name, const char* text) {
    if (FILE* f = std::fopen(name, "w")) {
        std::fputs(text, f);
        std::fclose(f);
    }
}

std::set<std::string> sandbox() {
    static std::set<std::string> base = [] {
        char tmpl[] = "/tmp/attn-fuzz-cli-XXXXXX";
        if (!::mkdtemp(tmpl) || ::chdir(tmpl) != 0) std::abort();
        put("x.txt", "0.35 0.15 0.89\n0.97 0.80 0.30\n0.65 0.34 0.24\n");
        put("q.txt", "1 0 1\n0 1 0\n");
        put("k.txt", "1 1 0\n0 1 1\n1 0 0\n");
        put("v.txt", "1 2\n3 4\n5 6\n");
        put("w.txt", "1 0\n0 1\n1 1\n");
        put("m.txt", "1 0 1\n0 1 1\n");
        put("b.txt", "0 -inf 1\n-1 0 -inf\n");
        put("l.txt", "a\nb\nc\n");
        const int in = ::open("/dev/null", O_RDONLY);
        ::dup2(in, STDIN_FILENO);
        ::close(in);
        return listing();
    }();
    return base;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::set<std::string> base = sandbox();
    if (size == 0 || size > 512) return -1;
    static constexpr struct {
        const char* name;
        int (*run)(int, char**);
    } commands[] = {{"attend", attn::cli::cmd_attend},   {"softmax", attn::cli::cmd_softmax},
                    {"matmul", attn::cli::cmd_matmul},   {"random", attn::cli::cmd_random},
                    {"example", attn::cli::cmd_example}};
    const auto& cmd = commands[data[0] % 5];
    std::vector<std::string> args{cmd.name};
    std::string cur;
    for (std::size_t i = 1; i < size; ++i) {
        if (data[i] == 0) {
            args.push_back(cur);
            cur.clear();
        } else {
            cur += char(data[i]);
        }
    }
    if (size > 1) args.push_back(cur);
    const bool random = std::string(cmd.name) == "random";
    for (const auto& a : args) {
        if (a.find('/') != std::string::npos || a.find("thread") != std::string::npos) return -1;
        if (random && (a.find("count") != std::string::npos || a.find(',') != a.rfind(','))) return -1;
        std::size_t run = 0;
        for (char c : a) {
            run = (c >= '0' && c <= '9') ? run + 1 : 0;
            if (random && run > 3) return -1;
        }
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    // Standard output goes to a memory file for the length of the call.
    std::fflush(stdout);
    std::cout.flush();
    const int saved = ::dup(STDOUT_FILENO);
    const int mem = ::memfd_create("attn-fuzz-stdout", 0);
    ::dup2(mem, STDOUT_FILENO);
    int code = 0;
    try {
        code = cmd.run(int(args.size()), argv.data());
    } catch (const attn::Error& e) {
        code = e.exit_code();
    } catch (const std::bad_alloc&) {
        code = attn::exit_runtime;
    }
    std::fflush(stdout);
    std::cout.flush();
    const off_t written = ::lseek(mem, 0, SEEK_END);
    ::dup2(saved, STDOUT_FILENO);
    ::close(saved);
    ::close(mem);

    if (code < 0 || code > 3) std::abort();
    const std::set<std::string> now = listing();
    if (code != 0) {
        if (written > 0) {
            std::fprintf(stderr, "fuzz invariant broken: exit %d after %lld bytes on stdout\n", code, (long long)written);
            std::abort();
        }
        if (now != base) {
            std::fprintf(stderr, "fuzz invariant broken: exit %d left a file behind\n", code);
            std::abort();
        }
    }
    if (code == 0) {  // a successful run may have replaced an input (-o x.txt): put them back
        static const char* const inputs[][2] = {
            {"x.txt", "0.35 0.15 0.89\n0.97 0.80 0.30\n0.65 0.34 0.24\n"}, {"q.txt", "1 0 1\n0 1 0\n"},
            {"k.txt", "1 1 0\n0 1 1\n1 0 0\n"}, {"v.txt", "1 2\n3 4\n5 6\n"}, {"w.txt", "1 0\n0 1\n1 1\n"},
            {"m.txt", "1 0 1\n0 1 1\n"}, {"b.txt", "0 -inf 1\n-1 0 -inf\n"}, {"l.txt", "a\nb\nc\n"}};
        for (const auto& f : inputs) put(f[0], f[1]);
    }
    for (const auto& n : now)  // successful runs may write files: start the next run clean
        if (!base.count(n)) {
            struct stat st {};
            if (::lstat(n.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
                std::string cmdline = "rm -rf -- '" + n + "'";
                if (n.find('\'') == std::string::npos && std::system(cmdline.c_str()) != 0) {}
            } else {
                ::unlink(n.c_str());
            }
        }
    return 0;
}
