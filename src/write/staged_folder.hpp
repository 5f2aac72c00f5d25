// Internal to src/write and the CLI: files published together into a folder, for `-o DIR` of a
// command that writes one file per item as it goes (`random --count N --format npy`), and for
// a missing folder of several outputs (write_files, `attend -o DIR --format npy`).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "write/commit.hpp"

namespace attn::io::detail {

// Each file is written (through OutputFile) into a staging folder, and the files appear in DIR
// only once every one is whole, in one Commit (write/commit.hpp): a DIR that did not exist
// appears at once (the staging folder, made next to it, is renamed to it); into an existing
// DIR, the staging folder is made inside it and each file is swapped with the one of its name,
// so that DIR's other files stay and the old ones are untouched until then. The staging folder
// is removed by any error, a closed pipe or a catchable signal (write/temp_files.hpp); SIGKILL
// or a crash leaves it (a hidden .DIR.attn-XXXXXX beside DIR, or DIR/.attn-XXXXXX).
// Errors: UsageError when DIR names something that is not a folder; RuntimeFailure when a
// folder cannot be made there or a file moved into it.
class StagedFolder {
public:
    explicit StagedFolder(const std::string& dir);
    ~StagedFolder();  // unless published: the staging folder and what is in it are removed
    StagedFolder(const StagedFolder&) = delete;
    StagedFolder& operator=(const StagedFolder&) = delete;

    const std::string& dir() const { return dir_; }
    // Where the file `name` of DIR is written meanwhile; in an existing DIR it notes what DIR
    // holds under that name now, which the Commit checks is still there.
    std::string path_of(const std::string& name);
    // The renames that publish it. Errors: RuntimeFailure when DIR holds a folder under the
    // name of a file (found before anything moves).
    void add_to(Commit& c) const;
    void mark_published();  // after the Commit has run
    void publish();         // a Commit of its own

private:
    std::string dir_, staging_;
    FileId before_;                                       // DIR itself, when it was missing
    std::vector<std::pair<std::string, FileId>> names_;  // an existing DIR's files to replace
    bool existed_ = false, published_ = false;
};

}  // namespace attn::io::detail
