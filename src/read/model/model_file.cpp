// Model paths ("FILE.npz:NAME", "FILE.safetensors:NAME", "FILE.pt:NAME"): splitting the path, mapping the
// file, and handing the bytes to the format's reader. Files are mapped, not read, so only
// the pages of the tensor asked for are touched, however large the checkpoint.
#include <sys/stat.h>

#include <cctype>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/model_file.hpp"
#include "read/input_bytes.hpp"
#include "runtime/utf8.hpp"

namespace attn::io {

namespace {

enum class ModelFormat { npz, safetensors, torch };

constexpr std::pair<std::string_view, ModelFormat> extensions[] = {
    {".npz", ModelFormat::npz}, {".safetensors", ModelFormat::safetensors}, {".bin", ModelFormat::torch}, {".pt", ModelFormat::torch}, {".pth", ModelFormat::torch}};

struct ModelPath {
    std::string file, name;  // name "" = the file's only tensor
    ModelFormat format = ModelFormat::npz;
};

// The first model extension that ends the path or is followed by ':'.
bool split(std::string_view path, ModelPath* out) {
    for (std::size_t at = 0; at < path.size(); ++at)
        for (const auto& [ext, format] : extensions) {
            if (path.substr(at, ext.size()) != ext) continue;
            const std::size_t end = at + ext.size();
            if (end != path.size() && path[end] != ':') continue;
            if (out) {
                out->file = std::string(path.substr(0, end));
                out->name = end == path.size() ? "" : std::string(path.substr(end + 1));
                out->format = format;
            }
            return true;
        }
    return false;
}

// A legacy torch.save file (torch < 1.6, or _use_new_zipfile_serialization=False) is a
// bare pickle stream: PROTO 2 then LONG1 of torch's magic number (torch_zip.cpp reads it).
bool is_legacy_torch(std::string_view b) { return b.substr(0, 3) == "\x80\x02\x8a"; }

}  // namespace

bool is_model_path(std::string_view path) {
    ModelPath mp;
    if (!split(path, &mp)) return false;
    // 'a.npz:b.txt' that exists is that file (there is no escape for ':' in a model path).
    struct stat st {};
    if (mp.file.size() != path.size()) return ::stat(std::string(path).c_str(), &st) != 0;
    // ".bin" names many things: a bare X.bin (.pt, .pth) is a checkpoint only when it starts
    // like one (a zip, or a legacy torch pickle); otherwise it is read by content as before.
    if (mp.format != ModelFormat::torch) return true;
    char head[4] = {};
    if (std::FILE* f = std::fopen(mp.file.c_str(), "rb")) {
        const std::size_t n = std::fread(head, 1, sizeof head, f);
        std::fclose(f);
        const std::string_view h(head, n);
        return h == "PK\x03\x04" || is_legacy_torch(h);
    }
    return true;  // missing or unreadable: reported by the model reader, naming the file
}

Tensor read_model_tensor(const std::string& path, Finite finite, std::size_t max_dims) {
    ModelPath mp;
    if (!split(path, &mp)) throw UsageError(path + ": not a model path (FILE.npz:NAME, FILE.safetensors:NAME or FILE.pt:NAME)");
    if (mp.name.empty() && path.size() > mp.file.size())
        throw UsageError(path + ": the tensor name after ':' is empty (attn ls " + mp.file + " lists them)");
    const detail::MappedFile f(mp.file);
    switch (mp.format) {
        case ModelFormat::npz: return npz_tensor(f.bytes(), mp.name, mp.file, finite, max_dims);
        case ModelFormat::safetensors: return safetensors_tensor(f.bytes(), mp.name, mp.file, finite, max_dims);
        case ModelFormat::torch: break;
    }
    return torch_tensor(f.bytes(), mp.name, mp.file, finite, max_dims);
}

bool is_integer_dtype(std::string_view dtype) {
    // npz and torch name them bool, int64, uint8, ...; safetensors BOOL, I64, U8, ...
    std::string d;
    for (char c : dtype) d += char(std::tolower(static_cast<unsigned char>(c)));
    const bool sized = d.size() > 1 && (d[0] == 'i' || d[0] == 'u') && std::isdigit(static_cast<unsigned char>(d[1]));
    return d == "bool" || d.starts_with("int") || d.starts_with("uint") || sized;
}

bool model_tensor_is_integer(const std::string& path) {
    ModelPath mp;
    if (!split(path, &mp)) return false;
    for (const TensorInfo& t : list_model_tensors(mp.file))
        if (mp.name.empty() || t.name == mp.name) return is_integer_dtype(t.dtype);
    return false;
}

ArchiveTensor archive_tensor(std::string_view bytes, const std::string& name, const std::string& source, Finite finite,
                             std::size_t max_dims) {
    const bool torch = is_torch_checkpoint(bytes) || is_legacy_torch(bytes);
    const std::vector<TensorInfo> listed = torch ? torch_list(bytes, source) : npz_list(bytes, source);
    if (name.empty() && listed.size() != 1) {
        std::vector<std::string> names;
        for (const TensorInfo& t : listed) names.push_back(t.name);
        const std::string named_as = source == detail::display_name("-") ? "-" : source;
        throw InputError(source + ": " + (torch ? "a torch.save file" : "an .npz") + " of " +
                         std::to_string(listed.size()) + " tensors" +
                         (listed.empty() ? "" : " (" + printable_names(names) + "): name one as " + named_as + ":NAME"));
    }
    ArchiveTensor out;
    for (const TensorInfo& t : listed)
        if (name.empty() || t.name == name) out.integer = is_integer_dtype(t.dtype);
    out.values = torch ? torch_tensor(bytes, name, source, finite, max_dims) : npz_tensor(bytes, name, source, finite, max_dims);
    return out;
}

KVInput read_model_kv(const std::string& path, std::size_t max_dims) {
    KVInput kv;
    ModelPath mp;
    if (split(path, &mp) && mp.format == ModelFormat::safetensors && !(mp.name.empty() && path.size() > mp.file.size())) {
        const detail::MappedFile f(mp.file);
        kv.f32 = safetensors_tensor(f.bytes(), mp.name, mp.file, Finite::required, max_dims, &kv.f16);
        return kv;
    }
    kv.f32 = read_model_tensor(path, Finite::required, max_dims);
    return kv;
}

bool is_pytorch_weight(const std::string& path) {
    ModelPath mp;
    if (!split(path, &mp) || !is_model_path(path)) return false;
    if (mp.format == ModelFormat::torch) return true;
    if (mp.format != ModelFormat::safetensors || !mp.name.ends_with(".weight")) return false;
    try {
        const detail::MappedFile f(mp.file);
        return safetensors_metadata(f.bytes(), "format", mp.file) == "pt";
    } catch (const Error&) {
        return false;  // the tensor's own reading reports the file's faults
    }
}

std::vector<TensorInfo> list_model_tensors(const std::string& file) {
    const detail::MappedFile f(file);
    const std::string_view b = f.bytes();
    // The extension names the format (a damaged .npz is reported as one); other names by content.
    ModelPath mp;
    if (split(file, &mp) && mp.file.size() == file.size()) {
        if (mp.format == ModelFormat::npz) return npz_list(b, file);
        if (mp.format == ModelFormat::safetensors) return safetensors_list(b, file);
        return torch_list(b, file);
    }
    if (b.substr(0, 2) == "PK") return is_torch_checkpoint(b) ? torch_list(b, file) : npz_list(b, file);
    if (b.substr(0, 6) == "\x93NUMPY")
        throw InputError(file + ": an .npy file holds one array, read as it is; ls lists .npz, .safetensors and torch.save files");
    if (is_legacy_torch(b)) return torch_list(b, file);
    // A safetensors header: a little-endian length, then '{'.
    if (b.size() < 9 || b[8] != '{')
        throw InputError(file + ": not a model file (attn ls lists .npz, .safetensors and torch.save .bin/.pt/.pth files)");
    return safetensors_list(b, file);
}

}  // namespace attn::io
