// A restricted unpickler for the data.pkl of a torch.save checkpoint. It never calls or
// imports anything: it knows the opcodes a pickled state_dict uses (protocols 2 to 5) and
// the handful of globals torch writes for tensors, and builds values. They may be shared: the
// memo places one value many times, so they form a graph without cycles, not a tree, and a
// walk of them must bound its work (see torch_zip.cpp). Every other opcode (INST, OBJ,
// NEWOBJ, PERSID, EXT...) and every other global (posix.system, builtins.eval...) is refused
// by name with an InputError. Internal to the model readers.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn::io::pickle {

struct Node;
using Value = std::shared_ptr<Node>;

// A torch storage named by a persistent id ('storage', torch.FloatStorage, KEY, LOCATION, NUMEL[, None]).
struct StorageRef {
    std::string dtype;  // torch's name: "float32", "float16", "bfloat16", "int64", ...
    std::size_t item_size = 0;
    std::string key;    // the archive member data/KEY
    std::uint64_t numel = 0;
};

// torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...): a strided view.
struct TensorRef {
    StorageRef storage;
    std::uint64_t offset = 0;  // in elements
    std::vector<std::uint64_t> shape, stride;
};

struct Node {
    enum class Kind { none, boolean, integer, real, text, tuple, list, dict, global, storage, tensor };
    Kind kind = Kind::none;
    std::int64_t integer = 0;  // boolean and integer
    double real = 0;
    std::string text;          // text; global: "module.name"
    std::vector<Value> items;  // tuple, list
    std::vector<std::pair<Value, Value>> entries;  // dict, in insertion order
    StorageRef storage;
    TensorRef tensor;
    std::size_t depth = 1;  // nesting below this node, bounded (deep trees are refused)
    // Placed inside another value: a dict or list is complete before pickle places it, and
    // refusing to change it afterwards makes cycles impossible.
    bool placed = false;
};

// The value a pickle builds. `source` names it in messages ("FILE: data.pkl: ..."). With
// `consumed`, the bytes up to its STOP opcode (a legacy torch.save file is pickles in a row).
Value unpickle(std::string_view bytes, const std::string& source, std::size_t* consumed = nullptr);

// The torch storage type a global names ("torch.FloatStorage" → float32, 4), or false.
bool storage_type(std::string_view global, StorageRef* out);

}  // namespace attn::io::pickle
