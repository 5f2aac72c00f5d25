// Internal to src/write: the commit phase, the renames that publish every output of one run
// together (OutputFile, StagedFolder and write_files all end in it).
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace attn::io::detail {

// What a path names, as lstat sees it: nothing, or one file or folder (device, inode).
struct FileId {
    bool exists = false;
    dev_t dev = 0;
    ino_t ino = 0;
    bool operator==(const FileId&) const = default;
};
FileId file_id(const std::string& path);

// The renames of one run, all or none:
//  - each moves a finished temporary file or staged folder (`from`) onto its output (`to`),
//    which must still be what it was when the run began to write it (`before`); an output
//    another process made or replaced meanwhile (another attn writing there) fails the
//    whole commit before anything moves, so that of two runs one wins whole and the other
//    fails with a message;
//  - runs of attn publish one at a time: each holds flock on the folders of its outputs
//    while it checks and renames (where the file system has flock);
//  - an existing file is swapped with its replacement (renameat2 RENAME_EXCHANGE), so that a
//    rename failing half-way swaps the earlier ones back; its old contents, left at `from`,
//    are removed at the end. A new name is taken with RENAME_NOREPLACE. (Where the file
//    system has neither, a plain rename.)
//  - the asynchronous signals are held off during the renames (DeferredSignals): SIGINT
//    or SIGTERM meanwhile ends the process once every output is in place.
// Errors: RuntimeFailure, every output then as it was and every `from` still in place (its
// owner removes it).
class Commit {
public:
    void add(const std::string& from, const std::string& to, const std::string& shown, const FileId& before);
    // The check run makes first (every output still what it was), without the locks: the caller's
    // last look before it writes what no commit can take back (standard output).
    void check() const;
    void run();

private:
    struct Step {
        std::string from, to, shown;
        FileId before;
        int how = 0;  // placed (to was free), exchanged (to's old contents now at from), overwritten
    };
    void undo(std::size_t done) noexcept;
    std::vector<Step> steps_;
};

}  // namespace attn::io::detail
