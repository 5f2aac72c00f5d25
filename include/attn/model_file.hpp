// Tensors inside model files: NumPy archives (.npz, from numpy.savez / savez_compressed) and
// safetensors files (F32, F16 and BF16 tensors). Every reader of attn accepts
// "FILE.npz:NAME" or "FILE.safetensors:NAME" where it accepts a file; a bare FILE.npz or
// FILE.safetensors names its only tensor.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "attn/io.hpp"
#include "attn/tensor.hpp"

namespace attn::io {

// One tensor of a model file as listed by `attn ls`: dtype in the file's own vocabulary
// ("float32" in an .npz, "F32" in a safetensors file).
struct TensorInfo {
    std::string name;
    std::string dtype;
    Shape shape;
    bool shape_known = true;  // false: the header gives no shape attn can parse (see note)
    std::string note;         // why attn cannot read the tensor ("" when it can)
};

// True for "X.npz", "X.npz:NAME", "X.safetensors" and "X.safetensors:NAME", except a path
// that names an existing file (or folder) as a whole: "a.npz:b.txt" that exists is that file.
bool is_model_path(std::string_view path);

// The tensor a model path names, converted to float32. InputError "FILE:NAME: ..." when the
// file is malformed, the name is missing, the dtype is not supported or a value is not
// finite (see Finite), or the tensor has more than max_dims dimensions.
Tensor read_model_tensor(const std::string& path, Finite finite = Finite::required, std::size_t max_dims = max_rank);

// Every tensor of a file, in file order; the format is recognised by content (a zip archive
// is an .npz, anything else must be a safetensors file). Only the headers are read: an npz
// member's data is neither inflated nor CRC-checked (reading the tensor does both). An npz
// member is listed under the name that reads it (see npz_tensor).
std::vector<TensorInfo> list_model_tensors(const std::string& file);

// The same on bytes in memory; `source` names them in messages.
std::vector<TensorInfo> safetensors_list(std::string_view bytes, const std::string& source);
Tensor safetensors_tensor(std::string_view bytes, const std::string& name, const std::string& source,
                          Finite finite = Finite::required, std::size_t max_dims = max_rank);
std::vector<TensorInfo> npz_list(std::string_view bytes, const std::string& source);
// Every tensor of a safetensors file where it lies, for readers that use the data in place
// (attn model's weights): the header validated as safetensors_list validates it, `data` the
// tensor's bytes inside `bytes` (little-endian elements of info.dtype; note says why attn
// cannot read it, "" when it can).
struct TensorBytes {
    TensorInfo info;
    std::string_view data;
};
std::vector<TensorBytes> safetensors_entries(std::string_view bytes, const std::string& source);
// NAME is the member named exactly NAME, else NAME.npy, as numpy.load finds it.
Tensor npz_tensor(std::string_view bytes, const std::string& name, const std::string& source,
                  Finite finite = Finite::required, std::size_t max_dims = max_rank);

}  // namespace attn::io
