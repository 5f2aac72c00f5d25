// Model paths ("FILE.npz:NAME", "FILE.safetensors:NAME"): splitting the path, mapping the
// file, and handing the bytes to the format's reader. Files are mapped, not read, so only
// the pages of the tensor asked for are touched, however large the checkpoint.
#include <sys/stat.h>

#include <string>

#include "attn/error.hpp"
#include "attn/model_file.hpp"
#include "read/input_bytes.hpp"

namespace attn::io {

namespace {

constexpr std::string_view npz_ext = ".npz", safetensors_ext = ".safetensors";

struct ModelPath {
    std::string file, name;  // name "" = the file's only tensor
    bool npz = false;
};

// The first ".npz" or ".safetensors" that ends the path or is followed by ':'.
bool split(std::string_view path, ModelPath* out) {
    for (std::size_t at = 0; at < path.size(); ++at)
        for (std::string_view ext : {npz_ext, safetensors_ext}) {
            if (path.substr(at, ext.size()) != ext) continue;
            const std::size_t end = at + ext.size();
            if (end != path.size() && path[end] != ':') continue;
            if (out) {
                out->file = std::string(path.substr(0, end));
                out->name = end == path.size() ? "" : std::string(path.substr(end + 1));
                out->npz = ext == npz_ext;
            }
            return true;
        }
    return false;
}

}  // namespace

bool is_model_path(std::string_view path) {
    ModelPath mp;
    if (!split(path, &mp)) return false;
    // 'a.npz:b.txt' that exists is that file (there is no escape for ':' in a model path).
    struct stat st {};
    return mp.file.size() == path.size() || ::stat(std::string(path).c_str(), &st) != 0;
}

Tensor read_model_tensor(const std::string& path, Finite finite, std::size_t max_dims) {
    ModelPath mp;
    if (!split(path, &mp)) throw UsageError(path + ": not a model path (FILE.npz:NAME or FILE.safetensors:NAME)");
    if (mp.name.empty() && path.size() > mp.file.size())
        throw UsageError(path + ": the tensor name after ':' is empty (attn ls " + mp.file + " lists them)");
    const detail::MappedFile f(mp.file);
    return mp.npz ? npz_tensor(f.bytes(), mp.name, mp.file, finite, max_dims)
                   : safetensors_tensor(f.bytes(), mp.name, mp.file, finite, max_dims);
}

std::vector<TensorInfo> list_model_tensors(const std::string& file) {
    const detail::MappedFile f(file);
    const std::string_view b = f.bytes();
    // The extension names the format (a damaged .npz is reported as one); other names by content.
    const std::string_view name = file;
    if (name.ends_with(npz_ext)) return npz_list(b, file);
    if (name.ends_with(safetensors_ext)) return safetensors_list(b, file);
    if (b.substr(0, 2) == "PK") return npz_list(b, file);
    if (b.substr(0, 6) == "\x93NUMPY")
        throw InputError(file + ": an .npy file holds one array, read as it is; ls lists .npz and .safetensors files");
    return safetensors_list(b, file);
}

}  // namespace attn::io
