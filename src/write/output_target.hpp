// Internal to src/write: where an output path leads (its symbolic links followed under the
// kernel's rule for shared folders), and which directory entry that is, so that two outputs
// of one run reaching one entry by different paths are caught.
#pragma once
#include <sys/types.h>

#include <string>

namespace attn::io::detail {

// The rule of the kernel's fs.protected_symlinks, applied whatever that setting is: a symbolic
// link in a sticky, world-writable folder (/tmp) is followed only by its owner, or when the
// folder's owner also owns the link. Otherwise another user could plant it there and aim an
// output of ours (root's, say) at a file of ours it could not write itself.
bool may_follow_link(uid_t link_owner, uid_t folder_owner, mode_t folder_mode, uid_t follower);

// The path an output's data goes to: `path` with the symbolic links of its last component
// followed (even a dangling one) to the name they lead to, which is what gets replaced. The
// rule above applies to each of those links and to the links of the folder's own name (the DIR
// of -o DIR); links further up are the kernel's to resolve. `shown` names the output in
// messages. Errors: RuntimeFailure when a link may not be followed, cannot be read, or leads
// through more than 40 links.
std::string follow_links(const std::string& path, const std::string& shown);

// The same rule for a path that names a folder (-o DIR): the links of its last component.
void check_folder_links(const std::string& dir, const std::string& shown);

// The directory entry a path names, whatever the spelling (symbolic links, "..", a bind
// mount of the folder): the device and inode of the nearest existing folder on the way, and
// the rest of the path below it. Two outputs with equal keys would replace one another.
struct EntryKey {
    dev_t dev = 0;
    ino_t ino = 0;
    std::string rest;
    bool operator==(const EntryKey&) const = default;
};
EntryKey entry_key(const std::string& path);

// "." for a bare name, "/" for a name at the root, otherwise what precedes the last '/'.
std::string parent_of(const std::string& path);

}  // namespace attn::io::detail
