// Internal to src/write and the CLI: files published together into a folder, for `-o DIR` of a
// command that writes one file per item as it goes (`random --count N --format npy`).
#pragma once
#include <string>

namespace attn::io::detail {

// Each file is written (through OutputFile) into a staging folder, which no way of ending the
// process leaves behind (write/temp_files.hpp), and the files appear in DIR only once every one
// is whole: a DIR that did not exist appears at once (the staging folder, made next to it, is
// renamed to it); into an existing DIR, the staging folder is made inside it and the files are
// moved up one by one by publish (a rename each), so existing files are untouched until then.
// Errors: UsageError when DIR names something that is not a folder; RuntimeFailure when a
// folder cannot be made there or a file moved into it.
class StagedFolder {
public:
    explicit StagedFolder(const std::string& dir);
    ~StagedFolder();  // unless published: the staging folder and what is in it are removed
    StagedFolder(const StagedFolder&) = delete;
    StagedFolder& operator=(const StagedFolder&) = delete;

    std::string path_of(const std::string& name) const { return staging_ + "/" + name; }
    void publish();

private:
    std::string dir_, staging_;
    bool existed_ = false, published_ = false;
};

}  // namespace attn::io::detail
