// torch.save checkpoints in the zip format of torch >= 1.6 (pytorch_model.bin, .pt, .pth):
// a zip whose members share one folder, PREFIX/data.pkl (the pickled object),
// PREFIX/data/KEY (one member per storage, stored uncompressed), PREFIX/version and, from
// torch 1.13 on, PREFIX/byteorder. data.pkl goes through the restricted unpickler; each
// tensor is a strided view of a storage and is gathered straight from the mapped archive
// into a float32 Tensor (no copy of the member in between).
// The legacy format (torch < 1.6, or _use_new_zipfile_serialization=False; torch's
// _legacy_save) is pickles in a row: torch's magic number, the protocol version 1001, the
// system's info, the object (its storages named by persistent ids), the sorted storage keys;
// then each storage as its element count (int64) and its bytes, in the keys' order.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "attn/error.hpp"
#include "attn/model_file.hpp"
#include "read/header_cursor.hpp"
#include "read/model/elements.hpp"
#include "read/model/pickle.hpp"
#include "read/model/zip.hpp"
#include "runtime/crc32.hpp"
#include "runtime/system_memory.hpp"
#include "runtime/utf8.hpp"

namespace attn::io {

namespace {

struct Checkpoint {
    bool legacy = false;
    std::unordered_map<std::string, std::pair<std::uint64_t, std::uint64_t>> legacy_data;  // key: (offset, bytes)
    std::string prefix;  // "archive/"
    std::vector<ZipMember> members;
    // members by name, the first of a name (a lookup per tensor: a scan of the list each time
    // made a file of 100,000 tensors and members take 10^10 comparisons)
    std::unordered_map<std::string, std::size_t> by_name;
    std::vector<std::pair<std::string, pickle::TensorRef>> tensors;  // in file order
    std::size_t root_items = 0;  // the items of a saved tuple or list (0: something else was saved)
    pickle::Node::Kind root = pickle::Node::Kind::none;  // what was saved (a dict, tuple, list or tensor)
    std::string pickle;                                  // where: "data.pkl" (legacy: "the saved object")
};

const ZipMember* member(const Checkpoint& c, const std::string& name) {
    const auto it = c.by_name.find(c.prefix + name);
    return it == c.by_name.end() ? nullptr : &c.members[it->second];
}

// Where a storage's bytes lie: its archive member, or (legacy) its run of the file.
struct StorageBytes {
    const ZipMember* member = nullptr;
    std::uint64_t offset = 0, size = 0;
};
std::optional<StorageBytes> storage_bytes(const Checkpoint& c, const std::string& key) {
    if (c.legacy) {
        const auto it = c.legacy_data.find(key);
        if (it == c.legacy_data.end()) return std::nullopt;
        return StorageBytes{nullptr, it->second.first, it->second.second};
    }
    const ZipMember* m = member(c, "data/" + key);
    if (!m) return std::nullopt;
    return StorageBytes{m, m->data_offset, m->size};
}

// The pickle's values form a graph, not a tree: the memo lets a dict be placed many times, so
// 40 nested dicts that each hold the previous one twice name 2^39 tensors in 1.4 KB (a "billion
// laughs"). The walk that names the tensors is counted first on the graph, each dict once, and
// refused before any name is made when it would exceed these bounds. Real state_dicts stay far
// below them: an entry takes at least a few bytes of data.pkl (its key, its value or a memo
// reference), so only a dict placed many times walks more entries than data.pkl has bytes.
constexpr std::uint64_t max_tensor_names = 1'000'000;              // the largest checkpoints hold tens of thousands
constexpr std::uint64_t max_name_bytes = std::uint64_t(256) << 20;  // all names together
constexpr std::uint64_t name_bytes_per_pickle_byte = 256;         // a long key shared by a whole nested dict

constexpr std::uint64_t max_pickle_bytes = std::uint64_t(256) << 20;  // data.pkl (open)

struct Tally {
    std::uint64_t entries = 0, names = 0, name_bytes = 0;  // saturating at 2^64 - 1
};

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) { return __builtin_add_overflow(a, b, &a) ? UINT64_MAX : a; }
std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) { return __builtin_mul_overflow(a, b, &a) ? UINT64_MAX : a; }

// What collect() would walk and make, each dict counted once (nesting is at most 64 deep).
Tally tally(const pickle::Value& v, std::unordered_map<const pickle::Node*, Tally>& seen) {
    using K = pickle::Node::Kind;
    if (v->kind == K::tensor) return {0, 1, 0};
    const bool sequence = v->kind == K::tuple || v->kind == K::list;
    if (v->kind != K::dict && !sequence) return {};
    if (const auto it = seen.find(v.get()); it != seen.end()) return it->second;
    Tally t;
    const auto add = [&](const pickle::Value& value, std::uint64_t key_bytes) {
        const Tally sub = tally(value, seen);
        t.entries = sat_add(sat_add(t.entries, 1), sub.entries);
        t.names = sat_add(t.names, sub.names);
        // every name below gets this key (an index in a sequence) and a dot in front of it
        t.name_bytes = sat_add(t.name_bytes, sat_add(sub.name_bytes, sat_mul(sub.names, key_bytes + 1)));
    };
    if (sequence)
        for (std::size_t i = 0; i < v->items.size(); ++i) add(v->items[i], std::to_string(i).size());
    else
        for (const auto& [key, value] : v->entries) add(value, key->kind == K::text ? key->text.size() : 0);
    return seen[v.get()] = t;
}

std::string count_text(std::uint64_t n) { return n == UINT64_MAX ? "more than 2^64" : std::to_string(n); }

// `pickle` names the pickle in messages: data.pkl, or the legacy format's saved object.
void check_tally(const pickle::Value& root, std::uint64_t pickle_bytes, const std::string& source,
                 const std::string& pickle) {
    std::unordered_map<const pickle::Node*, Tally> seen;
    const Tally t = tally(root, seen);
    const std::string why = " (its dicts are placed again and again through the pickle memo): refused";
    if (t.entries > pickle_bytes)
        throw InputError(source + ": " + pickle + "'s dicts expand to " + count_text(t.entries) + " entries from " +
                         std::to_string(pickle_bytes) + " bytes" + why + "; attn walks at most one entry per byte of " +
                         pickle);
    if (t.names > max_tensor_names)
        throw InputError(source + ": " + pickle + " names " + count_text(t.names) +
                         " tensors: refused; attn reads at most " +
                         std::to_string(max_tensor_names) + " tensors from one checkpoint");
    if (t.name_bytes > max_name_bytes || t.name_bytes > sat_mul(pickle_bytes, name_bytes_per_pickle_byte))
        throw InputError(source + ": " + pickle + "'s tensor names would take " + count_text(t.name_bytes) + " bytes" +
                         why + "; attn allows at most " + std::to_string(name_bytes_per_pickle_byte) + " per byte of " +
                         pickle + " and " +
                         std::to_string(max_name_bytes >> 20) + " MiB in all");
}

// The tensors of a state_dict: a dict of names to tensors; a nested dict's tensors are
// named "OUTER.INNER" (a checkpoint {"model": state_dict, ...}), a tuple's or list's by their
// index ("attentions.0"; outputs.attentions saved as it is: "0", "1", ...); numbers, text, None
// and booleans beside them (an epoch, a version) are skipped; anything else is refused.
void collect(const pickle::Value& v, const std::string& name, Checkpoint& c, const std::string& source) {
    using K = pickle::Node::Kind;
    switch (v->kind) {
        case K::tensor: c.tensors.emplace_back(name, v->tensor); return;
        case K::dict:
            for (const auto& [key, value] : v->entries) {
                if (key->kind != K::text) throw InputError(source + ": a state_dict key that is not text");
                collect(value, name.empty() ? key->text : name + "." + key->text, c, source);
            }
            return;
        case K::tuple: case K::list:
            for (std::size_t i = 0; i < v->items.size(); ++i)
                collect(v->items[i], name.empty() ? std::to_string(i) : name + "." + std::to_string(i), c, source);
            return;
        case K::none: case K::boolean: case K::integer: case K::real: case K::text: return;
        default:
            throw InputError(source + ": '" + detail::printable(name, 60) +
                             "' is neither a tensor nor a dict, tuple or list of them (attn reads state_dicts)");
    }
}

std::string strides_text(const pickle::TensorRef& t) {
    std::string out;
    for (std::uint64_t s : t.stride) out += (out.empty() ? "" : ", ") + std::to_string(s);
    return out;
}

// Checks every tensor's view against its storage member before anything is read.
void check_view(const Checkpoint& c, const std::string& name, const pickle::TensorRef& t, const std::string& source) {
    const std::string where = source + ":" + name;
    const std::optional<StorageBytes> m = storage_bytes(c, t.storage.key);
    const std::string storage = (c.legacy ? "storage '" : "storage data/") + detail::printable(t.storage.key, 40) +
                                (c.legacy ? "'" : "");
    if (!m) throw InputError(where + ": its " + storage + (c.legacy ? " is not in the file's list of storages"
                                                                    : " is missing from the archive"));
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(t.storage.numel, std::uint64_t(t.storage.item_size), &bytes) || bytes > m->size)
        throw InputError(where + ": " + storage + " holds " + std::to_string(m->size) + " bytes, not " +
                         std::to_string(t.storage.numel) + " " + t.storage.dtype + " elements");
    if (t.shape.size() > max_rank) throw InputError(where + ": more than " + std::to_string(max_rank) + " dimensions");
    // The last element a view reaches: offset + Σ (size−1)·stride, inside the storage.
    std::uint64_t last = t.offset, count = 1;
    for (std::size_t d = 0; d < t.shape.size(); ++d) {
        std::uint64_t step = 0;
        if (__builtin_mul_overflow(count, t.shape[d], &count) ||
            (t.shape[d] && (__builtin_mul_overflow(t.shape[d] - 1, t.stride[d], &step) || __builtin_add_overflow(last, step, &last))))
            throw InputError(where + ": size and stride overflow");
    }
    if (count != 0 && last >= t.storage.numel)
        throw InputError(where + ": the view (offset " + std::to_string(t.offset) + ", strides (" + strides_text(t) +
                         ")) reaches element " +
                         std::to_string(last) + " of a storage of " + std::to_string(t.storage.numel));
}

// The state_dict the pickle `root` (of `size` bytes, named `pickle`) holds, named into c.tensors.
void take_tensors(const pickle::Value& root, std::size_t size, Checkpoint& c, const std::string& source,
                  const std::string& pickle) {
    using K = pickle::Node::Kind;
    if (root->kind != K::dict && root->kind != K::tuple && root->kind != K::list && root->kind != K::tensor)
        throw InputError(source + ": " + pickle + " holds no tensor, nor a dict, tuple or list of them (attn reads "
                         "state_dicts and saved tensors)");
    check_tally(root, size, source, pickle);  // before collect() makes any name
    c.root = root->kind, c.pickle = pickle;
    if (root->kind == K::tuple || root->kind == K::list) c.root_items = root->items.size();
    collect(root, root->kind == K::tensor ? "tensor" : "", c, source);  // torch.save(t): "tensor"
    // torch.load types a storage by its first reference; another type for it would read its
    // bytes as something else.
    std::unordered_map<std::string_view, const std::string*> dtype_of;
    for (const auto& [name, t] : c.tensors)
        if (const auto [it, fresh] = dtype_of.emplace(t.storage.key, &t.storage.dtype);
            !fresh && *it->second != t.storage.dtype)
            throw InputError(source + ":" + detail::printable(name, 60) + ": its storage '" +
                             detail::printable(t.storage.key, 40) + "' is " + t.storage.dtype + " here and " +
                             *it->second + " for another tensor: refused");
    std::unordered_set<std::string_view> names;  // {'a.b': t, 'a': {'b': u}} names two tensors a.b
    for (const auto& [name, t] : c.tensors)
        if (!names.insert(name).second)
            throw InputError(source + ": tensor '" + detail::printable(name, 60) +
                             "' appears twice (the keys of nested dicts join with '.')");
}

Checkpoint open(std::string_view bytes, const std::string& source) {
    Checkpoint c;
    c.members = zip_members(bytes, source);
    for (std::size_t k = 0; k < c.members.size(); ++k) c.by_name.emplace(c.members[k].name, k);
    for (const ZipMember& m : c.members)
        if (c.prefix.empty() && m.name.ends_with("/data.pkl") && m.name.find('/') == m.name.size() - 9)
            c.prefix = m.name.substr(0, m.name.size() - 8);
    if (c.prefix.empty()) throw InputError(source + ": a zip archive without data.pkl: not a torch.save checkpoint");
    // torch.load reads one folder, that of the first member, and refuses a member outside it.
    for (const ZipMember& m : c.members)
        if (!m.name.starts_with(c.prefix))
            throw InputError(source + ": members in more than one folder ('" + printable_utf8(c.prefix, 80) + "' and '" +
                             printable_utf8(m.name, 80) + "'): not a torch.save checkpoint (torch.load refuses it)");
    if (member(c, "constants.pkl") || member(c, "code/__torch__.py"))
        throw InputError(source + ": a TorchScript archive (torch.jit.save): not supported; save its state_dict with torch.save");
    if (const ZipMember* order = member(c, "byteorder"); order && zip_extract(bytes, *order, source) != "little")
        throw InputError(source + ": a big-endian checkpoint (byteorder is not 'little'): not supported");
    // A state_dict's pickle is kilobytes to a few megabytes (an entry per tensor); more declared
    // is refused before it is inflated (2 MiB deflated may declare 2 GiB, which the unpickler's
    // bound on values would refuse only after inflating all of it).
    const ZipMember& pickled = *member(c, "data.pkl");
    if (pickled.size > max_pickle_bytes)
        throw InputError(source + ": data.pkl is " + std::to_string(pickled.size) + " bytes: more than a state_dict's " +
                         "pickle takes (" + std::to_string(max_pickle_bytes >> 20) + " MiB): refused");
    const std::string pkl = zip_extract(bytes, pickled, source);
    take_tensors(pickle::unpickle(pkl, source + ": data.pkl"), pkl.size(), c, source, "data.pkl");
    for (const auto& [name, t] : c.tensors) check_view(c, name, t, source);
    return c;
}

constexpr std::string_view legacy_magic("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19\x2e", 15);

Checkpoint open_legacy(std::string_view bytes, const std::string& source) {
    Checkpoint c;
    c.legacy = true;
    std::size_t at = legacy_magic.size();
    // The next pickle of the stream, `what` for messages.
    const auto next = [&](const char* what) {
        std::size_t used = 0;
        const pickle::Value v = pickle::unpickle(bytes.substr(at), source + ": " + what, &used);
        at += used;
        return std::make_pair(v, used);
    };
    const pickle::Value version = next("the protocol version").first;
    if (version->kind != pickle::Node::Kind::integer || version->integer != 1001)
        throw InputError(source + ": a legacy torch.save file of protocol version other than 1001: not supported");
    const pickle::Value info = next("the system info").first;
    for (const auto& [key, value] : info->kind == pickle::Node::Kind::dict ? info->entries : decltype(info->entries){})
        if (key->kind == pickle::Node::Kind::text && key->text == "little_endian" &&
            value->kind == pickle::Node::Kind::boolean && !value->integer)
            throw InputError(source + ": a big-endian checkpoint (little_endian is False): not supported");
    const auto [root, root_bytes] = next("the saved object");
    take_tensors(root, root_bytes, c, source, "the saved object");
    const pickle::Value keys = next("the storage keys").first;
    if (keys->kind != pickle::Node::Kind::list)
        throw InputError(source + ": a damaged legacy torch.save file: no list of storage keys after the object");
    std::unordered_map<std::string, const pickle::StorageRef*> storages;
    for (const auto& [name, t] : c.tensors) storages.emplace(t.storage.key, &t.storage);
    // Each storage: its element count (int64, little-endian), then its bytes.
    for (const pickle::Value& k : keys->items) {
        const std::string shown = k->kind == pickle::Node::Kind::text ? detail::printable(k->text, 40) : "?";
        const auto it = k->kind == pickle::Node::Kind::text ? storages.find(k->text) : storages.end();
        if (it == storages.end())
            throw InputError(source + ": storage '" + shown + "' of the key list is not one the object's tensors use");
        if (c.legacy_data.count(k->text)) throw InputError(source + ": storage '" + shown + "' is listed twice");
        if (bytes.size() - at < 8)
            throw InputError(source + ": truncated legacy torch.save file (storage '" + shown + "')");
        std::uint64_t count = 0;
        for (int b = 7; b >= 0; --b) count = count << 8 | static_cast<unsigned char>(bytes[at + std::size_t(b)]);
        const pickle::StorageRef& s = *it->second;
        if (count != s.numel)  // an int64: a negative one shown as such, not as 2^64 - n
            throw InputError(source + ": storage '" + shown + "' holds " + std::to_string(std::int64_t(count)) +
                             " elements, its tensors' pickle says " + std::to_string(s.numel));
        std::uint64_t size = 0;
        if (__builtin_mul_overflow(count, std::uint64_t(s.item_size), &size) || size > bytes.size() - at - 8)
            throw InputError(source + ": truncated legacy torch.save file (storage '" + shown + "' runs past its end)");
        c.legacy_data.emplace(k->text, std::make_pair(std::uint64_t(at + 8), size));
        at += 8 + std::size_t(size);
    }
    for (const auto& [name, t] : c.tensors) check_view(c, name, t, source);
    return c;
}

Checkpoint open_checkpoint(std::string_view bytes, const std::string& source) {
    if (bytes.starts_with(legacy_magic)) return open_legacy(bytes, source);
    if (bytes.starts_with(legacy_magic.substr(0, 3)))  // PROTO 2, LONG1: a pickle stream, not torch's
        throw InputError(source + ": a pickle stream without torch's magic number: not a torch.save file (or one cut "
                         "short in its first 15 bytes)");
    return open(bytes, source);
}

// The float32 elements attn copies out of a view with more elements than its storage: up to
// the size at which buffers start to be checked against free memory (256 MiB), whatever the
// file's size; a view within its storage is bounded by the archive member's bytes instead.
constexpr std::size_t max_view_floats = checked_buffer_bytes / sizeof(float);

TensorInfo info(const std::string& name, const pickle::TensorRef& t) {
    TensorInfo i{name, t.storage.dtype, Shape(std::vector<std::size_t>(t.shape.begin(), t.shape.end())), true, {}};
    const std::string& d = t.storage.dtype;
    if (d != "float32" && d != "float16" && d != "bfloat16" && d != "float64")
        i.note = "dtype " + d + " is not supported (attn reads float32, float16, bfloat16 and float64)";
    else if (i.shape.rank() == 0) i.note = "0-d tensor (a single number): expected at least one dimension";
    else if (i.shape.numel() == 0) i.note = "empty tensor: shape " + i.shape.text();
    else if (i.shape.numel() > t.storage.numel && i.shape.numel() > max_view_floats) {
        // An expanded view (stride 0, torch's expand) or overlapping strides: torch.load keeps it
        // as a view of its small storage, attn copies it out to float32. The copy would not be
        // bounded by the file's size, so beyond the size of a checked buffer it is refused.
        const std::string strides = strides_text(t);
        i.note = "a view of " + std::to_string(i.shape.numel()) + " elements over a storage of " +
                 std::to_string(t.storage.numel) + " (strides (" + strides + "), an expanded tensor): attn would copy it out to " +
                 std::to_string(i.shape.numel() / (std::size_t(1) << 18)) + " MiB; views larger than their storage are read up to " +
                 std::to_string(max_view_floats >> 18) + " MiB (save it with .contiguous())";
    }
    return i;
}

std::string names_text(const Checkpoint& c) {
    std::vector<std::string> names;
    for (const auto& t : c.tensors) names.push_back(t.first);
    return printable_names(names, 60);
}

}  // namespace

bool is_torch_checkpoint(std::string_view bytes) {
    if (bytes.starts_with(legacy_magic)) return true;
    // Only the central directory is looked at: a zip with a FOLDER/data.pkl member.
    try {
        for (const ZipMember& m : zip_members(bytes, ""))
            if (m.name.ends_with("/data.pkl")) return true;
    } catch (const Error&) {
    }
    return false;
}

std::vector<TensorInfo> torch_list(std::string_view bytes, const std::string& source) {
    const Checkpoint c = open_checkpoint(bytes, source);
    std::vector<TensorInfo> out;
    for (const auto& [name, t] : c.tensors) out.push_back(info(name, t));
    return out;
}

namespace {

// Tensor `name` of an opened checkpoint ("" = its only one), or nullptr after an InputError
// naming what it holds.
const std::pair<std::string, pickle::TensorRef>* find_tensor(const Checkpoint& c, const std::string& name,
                                                            const std::string& source) {
    if (c.tensors.empty()) throw InputError(source + ": the checkpoint holds no tensors");
    const std::pair<std::string, pickle::TensorRef>* found = nullptr;
    for (const auto& t : c.tensors)
        if (t.first == name || (name.empty() && c.tensors.size() == 1)) found = &t;
    if (!found && name.empty())
        throw InputError(source + ": holds " + std::to_string(c.tensors.size()) + " tensors (" + names_text(c) +
                         "): name one as " + source + ":NAME");
    if (!found) throw InputError(source + ": no tensor '" + detail::printable(name, 60) + "' (it holds: " + names_text(c) + ")");
    return found;
}

// The tensor `found` of an opened checkpoint, asked for as `name`.
Tensor checkpoint_tensor(const Checkpoint& c, std::string_view bytes, const std::pair<std::string, pickle::TensorRef>* found,
                         const std::string& name, const std::string& source, Finite finite, std::size_t max_dims) {
    const std::string where = name.empty() ? source : source + ":" + name;
    const pickle::TensorRef& ref = found->second;
    const TensorInfo ti = info(found->first, ref);
    if (!ti.note.empty()) throw InputError(where + ": " + ti.note);
    const Shape& shape = ti.shape;
    if (shape.rank() > max_dims)
        throw InputError(where + ": shape " + shape.text() + " has " + std::to_string(shape.rank()) + " dimensions: at most " +
                         std::to_string(max_dims) + " are supported here");

    // The storage's bytes: in place when stored (torch writes storages uncompressed), CRC-checked
    // (the legacy format has no checksum).
    const StorageBytes m = *storage_bytes(c, ref.storage.key);
    std::string inflated;
    const std::size_t stored = std::size_t(m.member ? m.member->compressed_size : m.size);
    std::string_view data = bytes.substr(std::size_t(m.offset), stored);
    if (m.member && m.member->method != 0) data = inflated = zip_extract(bytes, *m.member, where);
    else if (m.member && crc32(data) != m.member->crc)
        throw InputError(where + ": CRC mismatch: the archive is damaged");
    const auto* p = reinterpret_cast<const unsigned char*>(data.data());
    const detail::FloatKind kind = ti.dtype == "float32"   ? detail::FloatKind::f32
                                   : ti.dtype == "float16" ? detail::FloatKind::f16
                                   : ti.dtype == "float64" ? detail::FloatKind::f64
                                                           : detail::FloatKind::bf16;

    // Any strides (a transposed or sliced view, a broadcast stride 0): an odometer over the
    // index, the storage element following it.
    Tensor t(shape);
    const std::size_t rank = shape.rank(), rows = t.rows(), cols = t.cols(), n = shape.numel();
    std::vector<std::size_t> idx(rank, 0);
    std::uint64_t at = ref.offset;
    for (std::size_t k = 0; k < n; ++k) {
        const unsigned char* b = p + at * ref.storage.item_size;
        detail::check_range(b, kind, shape, k, where);
        const float v = detail::decode_float(b, kind);
        detail::check_finite(finite, v, shape, k, where);
        t.slice_data(k / (rows * cols))[(k / cols % rows) * t.row_stride() + k % cols] = v;
        for (std::size_t d = rank; d-- > 0;) {
            if (++idx[d] < shape[d]) {
                at += ref.stride[d];
                break;
            }
            at -= (shape[d] - 1) * ref.stride[d];
            idx[d] = 0;
        }
    }
    return t;
}

// The elements between a view's rows when it is row-major: its last dimension contiguous and
// its leading dimensions, flattened, one run of rows at a single stride no shorter than a row
// (dimensions of size 1 take any stride, as in torch). nullopt for other views.
std::optional<std::uint64_t> row_major_stride(const pickle::TensorRef& t) {
    const std::size_t rank = t.shape.size();
    if (rank == 0) return std::nullopt;
    const std::uint64_t cols = t.shape[rank - 1];
    if (cols > 1 && t.stride[rank - 1] != 1) return std::nullopt;
    std::uint64_t ld = cols;  // the innermost leading dimension longer than 1 sets it
    for (std::size_t d = rank - 1; d-- > 0;)
        if (t.shape[d] > 1) {
            ld = t.stride[d];
            break;
        }
    if (ld < cols) return std::nullopt;
    std::uint64_t expect = ld;
    for (std::size_t d = rank - 1; d-- > 0;) {
        if (t.shape[d] > 1 && t.stride[d] != expect) return std::nullopt;
        if (__builtin_mul_overflow(expect, t.shape[d], &expect)) return std::nullopt;
    }
    return ld;
}

}  // namespace

Tensor torch_tensor(std::string_view bytes, const std::string& name, const std::string& source, Finite finite,
                    std::size_t max_dims) {
    const Checkpoint c = open_checkpoint(bytes, source);
    return checkpoint_tensor(c, bytes, find_tensor(c, name, source), name, source, finite, max_dims);
}

std::size_t torch_sequence_items(std::string_view bytes, const std::string& source) {
    return open_checkpoint(bytes, source).root_items;
}

void torch_tensors(std::string_view bytes, const std::vector<std::string>& names, const std::string& source,
                   Finite finite, std::size_t max_dims, const std::function<void(std::size_t, Tensor&&)>& take) {
    const Checkpoint c = open_checkpoint(bytes, source);
    // By name, the last of a name as find_tensor finds it (a search per name: n² for a tuple of n layers).
    std::unordered_map<std::string_view, const std::pair<std::string, pickle::TensorRef>*> by_name;
    for (const auto& t : c.tensors) by_name[t.first] = &t;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto it = by_name.find(names[i]);
        const auto* found = it != by_name.end() && !names[i].empty() ? it->second : find_tensor(c, names[i], source);
        take(i, checkpoint_tensor(c, bytes, found, names[i], source, finite, max_dims));
    }
}

std::vector<TorchTensorBytes> torch_entries(std::string_view bytes, const std::string& source) {
    const Checkpoint c = open_checkpoint(bytes, source);
    using K = pickle::Node::Kind;
    if (c.root != K::dict)  // transformers takes a state_dict's keys
        throw InputError(source + ": " + c.pickle + " holds " +
                         (c.root == K::list ? "a list" : c.root == K::tuple ? "a tuple" : "a tensor") +
                         ", not a state_dict (a dict of tensors)");
    if (c.tensors.empty()) throw InputError(source + ": the state_dict is empty (no tensor)");
    std::unordered_set<std::string_view> summed;  // storages whose CRC was checked
    std::vector<TorchTensorBytes> out;
    for (const auto& [name, t] : c.tensors) {
        TorchTensorBytes e{info(name, t), {}, 0};
        const std::string& dtype = t.storage.dtype;
        const std::optional<std::uint64_t> ld = row_major_stride(t);
        const StorageBytes m = *storage_bytes(c, t.storage.key);  // check_view found it
        if (e.info.note.empty() && dtype != "float64" && ld && (!m.member || m.member->method == 0)) {
            if (m.member && summed.insert(t.storage.key).second &&
                crc32(bytes.substr(std::size_t(m.offset), std::size_t(m.size))) != m.member->crc)
                throw InputError(source + ":" + detail::printable(name, 60) + ": CRC mismatch: the archive is damaged");
            // From the first element to the last (check_view: inside the storage).
            const std::uint64_t rows = e.info.shape.numel() / e.info.shape.back(1);
            const std::uint64_t span = (rows - 1) * *ld + e.info.shape.back(1);
            e.data = bytes.substr(std::size_t(m.offset + t.offset * t.storage.item_size), std::size_t(span * t.storage.item_size));
            e.row_stride = std::size_t(*ld);
        }
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace attn::io
