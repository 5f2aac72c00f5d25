// The mapped weights of a model folder (model/weights.hpp).
#include "model/weights.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/model_file.hpp"
#include "kernels/float16.hpp"
#include "read/input_bytes.hpp"
#include "read/json.hpp"
#include "read/model/elements.hpp"
#include "runtime/system_memory.hpp"
#include "runtime/utf8.hpp"
#include "tensor/finite_scan.hpp"

namespace attn::model {

float Weight::at(std::size_t i) const noexcept {
    switch (type) {
        case Type::f32: {
            float v;
            std::memcpy(&v, static_cast<const char*>(data) + 4 * i, 4);  // safetensors data may be unaligned
            return v;
        }
        case Type::f16: return kernels::half_to_float(static_cast<const std::uint16_t*>(data)[i]);
        case Type::bf16: return kernels::bfloat16_to_float(static_cast<const std::uint16_t*>(data)[i]);
    }
    return 0.0f;
}

void Weight::row(std::size_t r, float* out) const noexcept {
    const std::size_t n = cols();
    for (std::size_t c = 0; c < n; ++c) out[c] = at(r * stride() + c);
}

std::vector<float> Weight::values() const {
    std::vector<float> v(shape.numel());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = at(i);
    return v;
}

namespace {

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;  // follows links: a hub snapshot's files are links into blobs/
}

// Whether any element of w is NaN or ±inf, row by row (the rows of a converted .bin tensor are
// padded to its stride).
bool any_nonfinite(const Weight& w) {
    const std::size_t cols = w.cols(), rows = cols ? w.shape.numel() / cols : 0;
    const std::size_t size = w.type == Weight::Type::f32 ? 4 : 2;
    for (std::size_t r = 0; r < rows; ++r) {
        const void* row = static_cast<const char*>(w.data) + r * w.stride() * size;
        switch (w.type) {
            case Weight::Type::f32: if (any_nonfinite_f32(row, cols)) return true; break;
            case Weight::Type::f16: if (any_nonfinite_f16(row, cols)) return true; break;
            case Weight::Type::bf16:
                for (std::size_t c = 0; c < cols; ++c) {
                    std::uint16_t bits;
                    std::memcpy(&bits, static_cast<const char*>(row) + 2 * c, 2);
                    if ((bits & 0x7f80) == 0x7f80) return true;  // exponent all ones: inf or NaN
                }
                break;
        }
    }
    return false;
}

Weight::Type weight_type(const io::TensorBytes& t, const std::string& file) {
    if (!t.info.note.empty()) throw InputError(file + ": tensor '" + t.info.name + "': " + t.info.note);
    return t.info.dtype == "F32" ? Weight::Type::f32 : t.info.dtype == "F16" ? Weight::Type::f16 : Weight::Type::bf16;
}

}  // namespace

void Weight::finite_row(std::size_t r, float* out) const {
    row(r, out);
    for (std::size_t c = 0; c < cols(); ++c)
        if (!std::isfinite(out[c]))
            throw InputError(folder + ": tensor '" + name + "': " + nonfinite(r * cols() + c, out[c]) +
                             " (the row of an id or position the tokens use)");
}

std::string Weight::nonfinite(std::size_t k, float v) const {
    const std::string at = io::detail::element_position(shape, k);
    const double in_file = f64 ? io::detail::decode_double(f64 + 8 * k) : v;
    if (std::isfinite(in_file)) {  // an F64 value beyond float32
        char text[32];
        std::snprintf(text, sizeof text, "%g", in_file);
        return at + ": " + text + " in the file overflows float32";
    }
    return at + ": non-finite value '" + (std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf") + "' is not allowed here";
}

void require_regular_file(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw InputError(path + ": not a regular file (a model folder holds its config and weights as files)");
}

namespace {

// The shard files a Hugging Face index (model.safetensors.index.json,
// pytorch_model.bin.index.json) maps the tensors to, each once, in order of first mention.
std::vector<std::string> shard_files(const std::string& index) {
    require_regular_file(index);
    const json::Value v = [&] {
        try {
            return json::parse_json(io::read_file(index, io::Content::text));
        } catch (const InputError& e) {
            throw InputError(index + ": " + e.what());
        }
    }();
    const json::Value* map = v.is_object() ? v.find("weight_map") : nullptr;
    if (!map || !map->is_object()) throw InputError(index + ": no \"weight_map\" object");
    if (map->size() == 0) throw InputError(index + ": \"weight_map\" names no tensor");
    std::vector<std::string> files;
    for (const json::Value& f : map->values()) {
        if (!f.is_string()) throw InputError(index + ": \"weight_map\": expected file names");
        const std::string& name = f.as_string();
        // A NUL would end the name at the system call (opening another file than named).
        if (name.find('/') != std::string::npos || name.find('\0') != std::string::npos || name.empty() ||
            name[0] == '.')
            throw InputError(index + ": shard '" + io::printable_utf8(name, 80) + "' is not a file name in the folder");
        bool seen = false;
        for (const std::string& g : files) seen = seen || g == name;
        if (!seen) files.push_back(name);
    }
    return files;
}

// A tensor's bytes as float32, and sums of them, saturating (the memory check refuses SIZE_MAX).
std::size_t saturating_add(std::size_t a, std::size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
std::size_t float32_bytes(const Shape& shape) {
    std::size_t n = sizeof(float);
    for (std::size_t i = 0; i < shape.rank(); ++i)
        if (__builtin_mul_overflow(n, shape[i], &n)) return SIZE_MAX;
    return n;
}

}  // namespace

Weights::Weights(const std::string& folder) : folder_(folder) {
    // transformers' order: safetensors (one file, else shards), then pytorch_model.bin (one
    // file, else shards).
    const std::string single = folder + "/model.safetensors", index = folder + "/model.safetensors.index.json";
    const std::string bin = folder + "/pytorch_model.bin", bin_index = folder + "/pytorch_model.bin.index.json";
    std::vector<std::string> files;
    if (exists(single)) {
        files.push_back("model.safetensors");
    } else if (exists(index)) {
        files = shard_files(index);
    } else if (exists(bin) || exists(bin_index)) {
        const std::vector<std::string> bins = exists(bin) ? std::vector<std::string>{"pytorch_model.bin"}
                                                          : shard_files(bin_index);
        for (const std::string& name : bins) add_torch_file(name);
        add_legacy_names();
        return;
    } else {
        for (const std::string& path : {single, index, bin, bin_index}) {
            struct stat st {};
            if (::lstat(path.c_str(), &st) == 0 && ::stat(path.c_str(), &st) != 0)  // a dangling link, or a loop
                throw InputError(path + ": a symbolic link to nothing that can be read (" + std::strerror(errno) + ")");
        }
        throw InputError(folder + ": no model.safetensors, model.safetensors.index.json, pytorch_model.bin or "
                         "pytorch_model.bin.index.json (the weights of a Hugging Face model folder)");
    }
    for (const std::string& name : files) {
        const std::string path = folder + "/" + name;
        require_regular_file(path);
        files_.push_back(std::make_unique<io::detail::MappedFile>(path));
        files_text_ += (files_text_.empty() ? "" : ", ") + name;
        const std::vector<io::TensorBytes> entries = io::safetensors_entries(files_.back()->bytes(), path);
        // Weights are used where they lie, in the types the GEMM widens; F64 ones are copied as
        // float32 (transformers casts them to the model's dtype), the copies checked whole first.
        std::size_t copied = 0;
        for (const io::TensorBytes& t : entries)
            if (t.info.note.empty() && t.info.dtype == "F64") copied = saturating_add(copied, float32_bytes(t.info.shape));
        check_available(copied, "the F64 tensors of " + path + " copied as float32");
        for (const io::TensorBytes& t : entries) {
            Weight w;
            w.name = t.info.name, w.shape = t.info.shape, w.data = t.data.data();
            if (t.info.note.empty() && t.info.dtype == "F64") {
                w = widened_copy(w, io::detail::FloatKind::f64);
            } else if (t.info.note.empty()) {
                w.type = weight_type(t, path);
                // a header whose length is not a multiple of 8
                if (reinterpret_cast<std::uintptr_t>(w.data) % (w.type == Weight::Type::f32 ? 4 : 2) != 0)
                    w = widened_copy(w, w.type == Weight::Type::f32   ? io::detail::FloatKind::f32
                                        : w.type == Weight::Type::f16 ? io::detail::FloatKind::f16
                                                                      : io::detail::FloatKind::bf16);
            } else if (t.info.shape.rank() != 0 || t.info.dtype != "F32") {
                // unreadable tensors (integer buffers such as position_ids) are fine until asked for
                w.data = nullptr;
                w.name = t.info.name + "' (" + t.info.note + ")";
            }
            add(std::move(w), t.info.name, path);
        }
    }
    add_legacy_names();
}

// A torch.save file's tensors (a restricted unpickler): used where they lie in the mapped file
// when they can be (io::torch_entries: row-major views of stored float32, float16 and bfloat16
// storages, aligned to their element), else read into memory as float32 (other views, deflated
// members, float64). A 7B Llama's pytorch_model.bin in bfloat16 (13 GiB) took 26 GiB as
// float32 copies; now it is mapped, as model.safetensors is.
void Weights::add_torch_file(const std::string& name) {
    const std::string path = folder_ + "/" + name;
    require_regular_file(path);
    files_text_ += (files_text_.empty() ? "" : ", ") + name;
    auto file = std::make_unique<io::detail::MappedFile>(path);
    std::vector<std::string> copied;
    std::size_t bytes = 0;  // of the copies as float32
    for (const io::TorchTensorBytes& t : io::torch_entries(file->bytes(), path)) {
        Weight w;
        if (!t.info.note.empty()) {  // unreadable (buffers such as position_ids): fine until asked for
            w.name = t.info.name + "' (" + t.info.note + ")";
            add(std::move(w), t.info.name, path);
            continue;
        }
        w.type = t.info.dtype == "float32" ? Weight::Type::f32 : t.info.dtype == "float16" ? Weight::Type::f16 : Weight::Type::bf16;
        const std::size_t size = w.type == Weight::Type::f32 ? 4 : 2;
        if (t.data.empty() || reinterpret_cast<std::uintptr_t>(t.data.data()) % size != 0) {
            copied.push_back(t.info.name);
            bytes = saturating_add(bytes, float32_bytes(t.info.shape));
            continue;
        }
        w.name = t.info.name, w.shape = t.info.shape, w.data = t.data.data();
        w.ld = t.info.shape.rank() >= 2 ? t.row_stride : 0;
        add(std::move(w), t.info.name, path);
    }
    // The copies take this much as float32, whatever their storages hold (a view of one value
    // expanded to 255 MiB is 4 bytes in the file): checked whole, before any is read.
    check_available(bytes, "the tensors of " + path + " copied as float32");
    // Non-finite values are looked for on use, as in the tensors used in place (Weights::get, table).
    io::torch_tensors(file->bytes(), copied, path, io::Finite::any, max_rank, [&](std::size_t i, Tensor&& x) {
        owned_.push_back(std::move(x));
        const Tensor& t = owned_.back();
        Weight w;
        w.name = copied[i], w.shape = t.shape(), w.data = t.data(), w.ld = t.rank() >= 2 ? t.row_stride() : 0;
        add(std::move(w), copied[i], path);
    });
    files_.push_back(std::move(file));
}

// w's elements, of `kind` at w.data (any alignment), as float32 in a tensor of owned_: data not
// aligned to its element (Weight::at and the GEMM read float16 and bfloat16 through uint16_t
// pointers), and float64, which the GEMM does not read (a value beyond float32's range becomes
// ±inf, as torch's cast makes it: refused on use, as NaN and ±inf are, not in a weight unused).
Weight Weights::widened_copy(const Weight& w, io::detail::FloatKind kind) {
    owned_.emplace_back(w.shape);
    Tensor& t = owned_.back();
    const std::size_t cols = w.cols();
    const std::size_t size = kind == io::detail::FloatKind::f64 ? 8 : kind == io::detail::FloatKind::f32 ? 4 : 2;
    const auto* bytes = static_cast<const unsigned char*>(w.data);
    for (std::size_t k = 0; k < w.shape.numel(); ++k)  // byte by byte: any alignment
        t.slice_data(k / (t.rows() * cols))[(k / cols % t.rows()) * t.row_stride() + k % cols] =
            io::detail::decode_float(bytes + size * k, kind);
    Weight out;
    out.name = w.name, out.shape = w.shape, out.data = t.data(), out.ld = t.rank() >= 2 ? t.row_stride() : 0;
    out.f64 = kind == io::detail::FloatKind::f64 ? bytes : nullptr;
    return out;
}

void Weights::add(Weight w, const std::string& name, const std::string& path) {
    w.folder = folder_;
    // In two shards: which one an index means is unclear (Hugging Face's loading order decides).
    if (!tensors_.emplace(name, std::move(w)).second)
        throw InputError(path + ": tensor '" + name + "' is in another shard too (" + files_text_ + ")");
}

Weights::~Weights() = default;

// Checkpoints converted from TensorFlow (the original BERT's pytorch_model.bin) name a
// LayerNorm's parameters gamma and beta; transformers loads them as weight and bias.
void Weights::add_legacy_names() {
    std::vector<std::pair<std::string, Weight>> aliases;
    for (const auto& [name, w] : tensors_)
        for (const auto& [old_suffix, new_suffix] : {std::pair<const char*, const char*>{".gamma", ".weight"}, {".beta", ".bias"}}) {
            const std::string_view o = old_suffix;
            if (name.size() > o.size() && name.compare(name.size() - o.size(), o.size(), o) == 0) {
                const std::string alias = name.substr(0, name.size() - o.size()) + new_suffix;
                if (!tensors_.count(alias)) aliases.emplace_back(alias, w);
            }
        }
    for (auto& [alias, w] : aliases) tensors_.emplace(alias, std::move(w));
}

void Weights::choose_prefix(const std::vector<std::string>& prefixes, const std::string& probe) {
    for (const std::string& p : prefixes)
        if (tensors_.count(p + probe)) {
            prefix_ = p;
            return;
        }
    prefix_ = prefixes.empty() ? "" : prefixes.front();
    unmatched_ = prefixes;
}

bool Weights::has(const std::string& name) const { return tensors_.count(prefix_ + name) != 0; }

bool Weights::has_any(const std::string& start) const {
    const std::string full = prefix_ + start;
    const auto it = tensors_.lower_bound(full);
    return it != tensors_.end() && it->first.starts_with(full);
}

void Weights::missing(const std::string& name, const std::string& why) const {
    std::string nor;  // the names under the other prefixes, when none was found
    for (const std::string& p : unmatched_)
        if (p != prefix_) nor += (nor.empty() ? " (nor '" : ", nor '") + p + name + "'";
    throw InputError(folder_ + ": the weights (" + files_text_ + ") have no tensor '" + prefix_ + name + "'" +
                     (nor.empty() ? "" : nor + ")") + (why.empty() ? "" : ": " + why));
}

void Weights::require(const std::string& name) const {
    const auto it = tensors_.find(prefix_ + name);
    if (it == tensors_.end()) missing(name);
    if (!it->second.data) throw InputError(folder_ + ": tensor '" + it->second.name + " cannot be used");
}

const Weight& Weights::find(const std::string& name, std::initializer_list<std::size_t> shape) const {
    require(name);
    const std::string full = prefix_ + name;
    const Weight& w = tensors_.find(full)->second;
    used_.insert(w.name);
    const Shape want(shape);
    // Exactly: transformers' loader refuses a (1, n) vector for an (n,) parameter too (it was taken).
    if (w.shape != want)
        throw InputError(folder_ + ": tensor '" + full + "' has shape " + w.shape.text() + ", config.json needs " +
                         want.text());
    return w;
}

std::vector<std::string> Weights::unused(const std::string& start) const {
    const auto buffer = [](const std::string& name, const Weight& w) {
        const std::string_view last = std::string_view(name).substr(name.rfind('.') + 1);
        return last == "inv_freq" || last == "masked_bias" || (last == "bias" && w.shape.rank() == 4);
    };
    std::set<std::string> names;  // by the name in the file: a legacy alias (.gamma as .weight) is the same tensor
    const std::string full = prefix_ + start;
    for (auto it = tensors_.lower_bound(full); it != tensors_.end() && it->first.starts_with(full); ++it)
        if (!used_.count(it->second.name) && !buffer(it->first, it->second)) names.insert(it->second.name);
    return {names.begin(), names.end()};
}

const Weight& Weights::table(const std::string& name, std::initializer_list<std::size_t> shape) const {
    return find(name, shape);
}

const Weight& Weights::get(const std::string& name, std::initializer_list<std::size_t> shape) const {
    const Weight& w = find(name, shape);
    // Scanned once, on first use: a NaN in a query or key projection gives NaN scores, which the
    // attention's softmax takes for masked cells, and the layer would print finite weights.
    if (!w.checked && any_nonfinite(w)) {
        const std::size_t cols = w.cols();
        for (std::size_t k = 0; k < w.shape.numel(); ++k)
            if (const float v = w.at((k / cols) * w.stride() + k % cols); !std::isfinite(v))
                throw InputError(folder_ + ": tensor '" + prefix_ + name + "': " + w.nonfinite(k, v));
    }
    w.checked = true;
    return w;
}

}  // namespace attn::model
