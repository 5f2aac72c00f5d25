// Reading inputs: .npy or text recognised by content, into a tensor; and the 2-D view of
// that for callers that take matrices only.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/model_file.hpp"
#include "read/input_bytes.hpp"
#include "read/npy_in_place.hpp"
#include "read/text_mask.hpp"
#include "read/text_reader.hpp"
#include "runtime/system_memory.hpp"

namespace attn::io {

namespace {

Matrix as_matrix(Tensor&& t, const std::string& source) {
    if (t.rank() > 2) throw InputError(source + ": expected a matrix, got shape " + t.shape().text());
    return std::move(t).to_matrix();
}

// A mapped .npy of `type` that needs no conversion, padding or check beyond the scan for
// non-finite values: its mapping, taken from `bytes`, for a tensor to use where it lies (no
// copy, and no fresh pages to fault in and zero: the file's are in the page cache already).
std::optional<std::pair<Shape, FileMapping>> take_in_place(detail::InputBytes& bytes, const std::string& source,
                                                           std::size_t max_dims, ElementType type,
                                                           Finite finite = Finite::required) {
    if (!bytes.mapped() || bytes.view().empty() || static_cast<unsigned char>(bytes.view()[0]) != 0x93)
        return std::nullopt;
    const auto in_place = detail::npy_in_place(bytes.view(), source, max_dims, type, finite);
    if (!in_place) return std::nullopt;
    const auto [start, size] = bytes.release_writable_mapping();
    if (!start) return std::nullopt;
    return std::pair{in_place->shape, FileMapping{start, size, in_place->data_offset}};
}

// One named result of attn's text output: FILE.json:NAME, FILE.csv:NAME, FILE.tsv:NAME (the
// first such extension followed by ':'), or FILE:NAME of any other existing file (a pipe or
// FIFO too) that is not an .npy (text is recognised by content, whatever its name; the first
// ':' after which such a file ends). A path that names an existing file is that file, ':' or
// not; -:NAME is standard input's. UsageError for an empty NAME.
struct NamedResult {
    std::string file, name;
};

// FILE:NAME of a path that names no file: the first ':' after which an existing file (regular,
// or a stream: a pipe or FIFO) ends, and whether that file is an .npy (one array, no names).
struct FileAndName {
    std::size_t colon = std::string::npos;
    bool npy = false;
};
FileAndName file_and_name(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return {};
    for (std::size_t colon = path.find(':'); colon != std::string::npos; colon = path.find(':', colon + 1)) {
        const std::string file = path.substr(0, colon);
        if (colon == 0 || ::stat(file.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) continue;
        if (!S_ISREG(st.st_mode)) return {colon, false};  // a pipe or FIFO: its first byte is not peeked at
        unsigned char first = 0;
        if (std::FILE* f = std::fopen(file.c_str(), "rb")) {
            if (std::fread(&first, 1, 1, f) != 1) first = 0;
            std::fclose(f);
        }
        return {colon, first == 0x93};
    }
    return {};
}

std::optional<NamedResult> named_result(const std::string& path) {
    // Standard input's, whatever files the folder holds (as '-' is; a file of that name is ./-:NAME).
    if (path.starts_with("-:")) {
        if (path.size() == 2) throw UsageError(path + ": the result name after ':' is empty");
        return NamedResult{"-", path.substr(2)};
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return std::nullopt;
    std::size_t best = std::string::npos, ext_size = 0;
    for (const std::string_view ext : detail::result_file_extensions)
        if (const std::size_t at = path.find(std::string(ext) + ":"); at < best) best = at, ext_size = ext.size();
    if (best == std::string::npos)
        if (const FileAndName f = file_and_name(path); f.colon != std::string::npos && !f.npy) best = f.colon;
    if (best == std::string::npos) return std::nullopt;
    NamedResult r{path.substr(0, best + ext_size), path.substr(best + ext_size + 1)};
    if (r.name.empty()) throw UsageError(path + ": the result name after ':' is empty");
    return r;
}

// A named result's values, and whether they are booleans when that is known apart from the
// values: a tensor of an archive on a stream (booleans or integers, by its dtype), text
// that PyTorch printed with True and False (as read_mask reads text); not set otherwise.
struct NamedTensor {
    Tensor values;
    std::optional<bool> boolean;
};

// A stream (standard input, a pipe or FIFO given by name) read once: several results of it
// (-:NAME, or merge's FILE:context and FILE:lse of <(...)) are selected from the same bytes.
// Keyed by the stream itself (device and inode), not by its spelling: -:a and /dev/stdin:b, or a
// FIFO named ff and ./ff, are one stream (a second read of it would find it empty, or wait).
const std::string& stream_once(const std::string& path) {
    static std::map<std::pair<dev_t, ino_t>, std::string> read;
    struct stat st {};
    if ((path == "-" ? ::fstat(STDIN_FILENO, &st) : ::stat(path.c_str(), &st)) != 0) {
        detail::read_stream(path);  // throws, saying why it cannot be read
        throw InputError(detail::display_name(path) + ": " + std::strerror(errno));
    }
    const std::pair<dev_t, ino_t> key{st.st_dev, st.st_ino};
    const auto it = read.find(key);
    return it != read.end() ? it->second : read.emplace(key, detail::read_stream(path)).first->second;
}

NamedTensor read_named_result(const NamedResult& r, Finite finite, std::size_t max_dims) {
    const std::string source = detail::display_name(r.file);
    const bool stream = detail::is_stream(r.file);  // an archive there is told by its bytes
    std::string file_bytes;
    const std::string& bytes = stream ? stream_once(r.file) : (file_bytes = read_file(r.file));
    if (stream && detail::is_archive(bytes)) {
        ArchiveTensor t = archive_tensor(bytes, r.name, source, finite, max_dims);
        return {std::move(t.values), t.integer};
    }
    if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x93)
        throw InputError(source + ": an .npy file holds one array, without a name: read it as " + r.file);
    const std::string text = detail::has_lone_cr(bytes) ? detail::lone_cr_to_lf(bytes) : std::string();
    const std::string selected = detail::TextReader(text.empty() ? bytes : text, source, finite).only_result(r.name);
    const bool printed_bool =
        selected.find("True") != std::string::npos || selected.find("False") != std::string::npos;
    return {parse_text_tensor(selected, source, finite, max_dims),
            printed_bool ? std::optional<bool>(true) : std::nullopt};
}

// parse_tensor, with `lone_cr` already known for text: has_lone_cr(bytes). `mapped`: the bytes
// are a read-only file mapping (an .npy's pages are dropped as they are converted).
Tensor parse_tensor_scanned(std::string_view bytes, bool lone_cr, const std::string& source, Finite finite,
                            std::size_t max_dims, bool mapped = false) {
    // .npy starts with "\x93NUMPY"; a first byte 0x93 can never begin valid text, so even a
    // damaged magic is reported by the npy reader.
    if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x93)
        return detail::parse_npy_tensor(bytes, source, finite, max_dims, mapped);
    if (lone_cr) return parse_text_tensor(detail::lone_cr_to_lf(bytes), source, finite, max_dims);
    return parse_text_tensor(bytes, source, finite, max_dims);
}

}  // namespace

bool reads_standard_input(const std::string& path) { return path == "-" || path.starts_with("-:"); }

Tensor parse_tensor(std::string_view bytes, const std::string& source, Finite finite, std::size_t max_dims) {
    const bool npy = !bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x93;
    return parse_tensor_scanned(bytes, !npy && detail::has_lone_cr(bytes), source, finite, max_dims);
}

// FILE:NAME where no FILE:NAME exists but FILE does, and FILE is none of the files that hold named
// tensors (those above: an .npy): an InputError saying so, not "FILE:NAME: No such file".
void refuse_name_of_one_tensor_file(const std::string& path) {
    const std::size_t colon = file_and_name(path).colon;
    if (colon == std::string::npos) return;
    const std::string file = path.substr(0, colon);
    throw InputError(file + ": holds one tensor, with no name to select ('" + path.substr(colon + 1) +
                     "'): FILE:NAME names a tensor of an .npz, .safetensors or .bin/.pt file, or a result of "
                     "attn's text output");
}

Tensor read_tensor(const std::string& path, Finite finite, std::size_t max_dims) {
    if (is_model_path(path)) return read_model_tensor(path, finite, max_dims);  // FILE.npz:NAME, FILE.safetensors:NAME
    if (const auto named = named_result(path)) return read_named_result(*named, finite, max_dims).values;
    refuse_name_of_one_tensor_file(path);
    detail::InputBytes bytes(path);
    const std::string source = detail::display_name(path);
    if (bytes.stream() && detail::is_archive(bytes.view()))
        return archive_tensor(bytes.view(), "", source, finite, max_dims).values;
    if (const auto m = take_in_place(bytes, source, max_dims, ElementType::f32, finite))
        return Tensor(m->first, adopt_mapping(m->second));
    if (bytes.mapped()) return parse_tensor_scanned(bytes.view(), bytes.lone_cr(), source, finite, max_dims, true);
    return parse_tensor(bytes.view(), source, finite, max_dims);
}

namespace {

// The index i of a sequence member's name prefix + i (i in decimal, as Python's str(i) writes it).
std::optional<std::size_t> sequence_index(const std::string& name, const std::string& prefix) {
    if (!name.starts_with(prefix) || name.size() == prefix.size() || name.size() > prefix.size() + 9) return std::nullopt;
    const std::string digits = name.substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos || (digits.size() > 1 && digits[0] == '0'))
        return std::nullopt;
    return std::stoul(digits);
}

// The names of a saved sequence in its order (see read_stacked): torch.save's 0, 1, ... (one
// or more; the tuple or list of nothing else), numpy.savez's arr_0, arr_1, ... (two or more);
// empty for any other listing.
std::vector<std::string> sequence_names(const std::vector<TensorInfo>& listed, bool torch) {
    const std::size_t n = listed.size();
    if (n < (torch ? 1u : 2u)) return {};
    std::vector<std::string> names(n);  // by index
    for (std::size_t i = 0; i < n; ++i) {
        const std::optional<std::size_t> at = sequence_index(listed[i].name, torch ? "" : "arr_");
        if (!at || *at >= n || !names[*at].empty()) return {};
        names[*at] = listed[i].name;
    }
    return names;
}

// The sequence's tensors stacked, read from the archive's bytes; nothing when the listing is
// no sequence.
std::optional<Tensor> stack_sequence(std::string_view bytes, bool torch, const std::string& source, Finite finite,
                                     std::size_t max_dims) {
    const std::vector<TensorInfo> listed = torch ? torch_list(bytes, source) : npz_list(bytes, source);
    std::vector<std::string> names = sequence_names(listed, torch);
    // Only tensors: torch.stack refuses (t, None); the listing skips the None.
    if (torch && names.size() != torch_sequence_items(bytes, source)) names.clear();
    if (names.empty()) return std::nullopt;
    const std::size_t n = names.size();
    const std::string named_as = source == detail::display_name("-") ? "-" : source;
    const TensorInfo* first = nullptr;
    for (const TensorInfo& t : listed)
        if (t.name == names[0]) first = &t;
    // The shapes, as listed, before anything is read: a tuple of expanded views is small in
    // the file and any size stacked.
    for (const TensorInfo& t : listed) {
        if (!t.note.empty()) throw InputError(source + ":" + t.name + ": " + t.note);
        if (t.shape != first->shape)
            throw InputError(source + ": a sequence of " + std::to_string(n) + " tensors, read as layers to stack, but " +
                             names[0] + " is " + first->shape.text() + " and " + t.name + " is " + t.shape.text() +
                             ": name one as " + named_as + ":NAME");
    }
    if (first->shape.rank() + 1 > max_dims)
        throw InputError(source + ": a sequence of " + std::to_string(n) + " tensors of shape " + first->shape.text() +
                         ": stacked, " + std::to_string(first->shape.rank() + 1) + " dimensions: at most " +
                         std::to_string(max_dims) + " are supported here");
    std::vector<std::size_t> dims{n};
    for (std::size_t d = 0; d < first->shape.rank(); ++d) dims.push_back(first->shape[d]);
    const Shape stacked_shape(dims);
    const std::size_t bytes_each = first->shape.numel() * sizeof(float);
    check_available(bytes_each > SIZE_MAX / (n + 1) ? SIZE_MAX : bytes_each * (n + 1),
                    "the " + std::to_string(n) + " tensors of " + source + " stacked as float32");
    Tensor stacked(stacked_shape, Tensor::Uninitialized{});
    // Row by row (rows are row_stride apart across slices too; a 1-D layer is one row of the stack).
    const std::size_t cols = stacked.cols(), rows_each = first->shape.numel() / cols;
    const auto take = [&](std::size_t l, Tensor&& layer) {
        for (std::size_t r = 0; r < rows_each; ++r)
            std::memcpy(stacked.data() + (l * rows_each + r) * stacked.row_stride(), layer.data() + r * layer.row_stride(),
                        cols * sizeof(float));
    };
    if (torch) torch_tensors(bytes, names, source, finite, max_dims - 1, take);
    else npz_tensors(bytes, names, source, finite, max_dims - 1, take);
    return stacked;
}

}  // namespace

Tensor read_stacked(const std::string& path, Finite finite, std::size_t max_dims, bool* stacked) {
    *stacked = false;
    const bool stream = path == "-" || (!named_result(path) && detail::is_stream(path));
    if (stream) {
        const std::string source = detail::display_name(path);
        const std::string& bytes = stream_once(path);
        if (detail::is_archive(bytes)) {
            if (std::optional<Tensor> t = stack_sequence(bytes, is_torch_checkpoint(bytes), source, finite, max_dims)) {
                *stacked = true;
                return std::move(*t);
            }
            return archive_tensor(bytes, "", source, finite, max_dims).values;
        }
        return parse_tensor(bytes, source, finite, max_dims);
    }
    struct stat st {};
    if (is_model_path(path) && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        // The format as list_model_tensors tells it: by the name, else by the content. A
        // safetensors file names its tensors freely: no sequence.
        const detail::MappedFile f(path);
        const bool torch = !path.ends_with(".npz") && is_torch_checkpoint(f.bytes());
        const bool npz = path.ends_with(".npz") || (!torch && f.bytes().starts_with("PK"));
        if (torch || npz)
            if (std::optional<Tensor> t = stack_sequence(f.bytes(), torch, path, finite, max_dims)) {
                *stacked = true;
                return std::move(*t);
            }
    }
    return read_tensor(path, finite, max_dims);
}

// Every value 0 or 1 (a boolean mask written as numbers, MaskRules::zero_one_text_boolean).
bool all_zero_or_one(const Tensor& t) {
    for (std::size_t s = 0; s < t.slices(); ++s) {
        const MatrixView v = t.slice(s);
        for (std::size_t i = 0; i < v.rows; ++i)
            for (std::size_t j = 0; j < v.cols; ++j)
                if (v(i, j) != 0.0f && v(i, j) != 1.0f) return false;
    }
    return true;
}

MaskInput read_mask(const std::string& path, const MaskRules& rules, std::size_t max_dims) {
    const Finite finite = rules.additive ? Finite::allow_neg_inf : Finite::required;
    MaskInput m;
    if (is_model_path(path)) {  // a tensor of a model file: boolean when it holds booleans or integers
        m.values = read_tensor(path, finite, max_dims);
        m.boolean = model_tensor_is_integer(path);
        return m;
    }
    if (const auto named = named_result(path)) {  // a result of attn's text output (or an archive's on a stream)
        NamedTensor t = read_named_result(*named, finite, max_dims);
        m.values = std::move(t.values);
        m.boolean = t.boolean ? *t.boolean : rules.zero_one_text_boolean && all_zero_or_one(m.values);
        return m;
    }
    const std::string source = detail::display_name(path);
    // A bool, uint8 or int8 .npy file: read block by block into its bits, never mapped.
    if (auto bits = detail::read_npy_byte_mask(path, source, max_dims, rules, &m.negative, &m.boolean)) {
        m.bits = std::move(*bits);
        return m;
    }
    detail::InputBytes bytes(path, false);
    const std::string_view view = bytes.view();
    if (bytes.stream() && detail::is_archive(view)) {
        ArchiveTensor archived = archive_tensor(view, "", source, finite, max_dims);
        m.values = std::move(archived.values);
        m.boolean = archived.integer;
        return m;
    }
    if (!view.empty() && static_cast<unsigned char>(view[0]) == 0x93) {
        if (auto bits = parse_npy_mask(view, source, max_dims, rules, &m.negative, &m.boolean, bytes.mapped())) {
            m.bits = std::move(*bits);
            return m;
        }
        // An additive float32 mask is a bias: used where it lies, as read_tensor would.
        if (const auto in_place = take_in_place(bytes, source, max_dims, ElementType::f32, finite))
            m.values = Tensor(in_place->first, adopt_mapping(in_place->second));
        else
            m.values = detail::parse_npy_tensor(view, source, finite, max_dims, bytes.mapped());
        return m;
    }
    // Text: PyTorch prints a bool tensor with True and False, an integer one with integers (and
    // its dtype unless int64); such a mask is boolean, never added.
    const bool lone_cr = bytes.mapped() ? bytes.lone_cr() : detail::has_lone_cr(view);
    if (!lone_cr)
        if (auto bits = detail::parse_text_mask(view, rules, &m.negative, &m.boolean, bytes.mapped())) {
            m.bits = std::move(*bits);
            return m;
        }
    m.boolean = view.find("True") != std::string_view::npos || view.find("False") != std::string_view::npos ||
                detail::integer_print(view);
    m.values = bytes.mapped() ? parse_tensor_scanned(view, lone_cr, source, finite, max_dims)
                              : parse_tensor(view, source, finite, max_dims);
    m.boolean = m.boolean || (rules.zero_one_text_boolean && all_zero_or_one(m.values));
    return m;
}

KVInput read_kv_tensor(const std::string& path, std::size_t max_dims) {
    if (is_model_path(path)) return read_model_kv(path, max_dims);
    if (const auto named = named_result(path)) {
        KVInput kv;
        kv.f32 = read_named_result(*named, Finite::required, max_dims).values;
        return kv;
    }
    detail::InputBytes bytes(path);
    const std::string source = detail::display_name(path);
    KVInput kv;
    if (bytes.stream() && detail::is_archive(bytes.view())) {
        kv.f32 = archive_tensor(bytes.view(), "", source, Finite::required, max_dims).values;
        return kv;
    }
    if (const auto m = take_in_place(bytes, source, max_dims, ElementType::f16)) {
        kv.f16 = HalfTensor(m->first, m->second);
        return kv;
    }
    if (const auto m = take_in_place(bytes, source, max_dims, ElementType::f32)) {
        kv.f32 = Tensor(m->first, adopt_mapping(m->second));
        return kv;
    }
    return parse_kv_tensor(bytes.view(), source, max_dims);
}

Matrix parse_matrix(std::string_view bytes, const std::string& source, Finite finite) {
    return as_matrix(parse_tensor(bytes, source, finite, max_rank), source);
}

Matrix read_matrix(const std::string& path, Finite finite) {
    return as_matrix(read_tensor(path, finite, max_rank), detail::display_name(path));
}

Matrix parse_text(std::string_view text, const std::string& source, Finite finite) {
    return as_matrix(parse_text_tensor(text, source, finite, max_rank), source);
}

Matrix parse_npy(std::string_view bytes, const std::string& source, Finite finite) {
    return as_matrix(parse_npy_tensor(bytes, source, finite, max_rank), source);
}

}  // namespace attn::io
