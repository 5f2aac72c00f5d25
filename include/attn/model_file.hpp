// Tensors inside model files: NumPy archives (.npz, from numpy.savez / savez_compressed),
// safetensors files (F32, F16, BF16 and F64 tensors) and torch.save checkpoints in torch's zip
// format (.bin, .pt, .pth: float32, float16, bfloat16 and float64 tensors of a state_dict, read by a
// restricted unpickler that runs nothing). Every reader of attn accepts "FILE.npz:NAME",
// "FILE.safetensors:NAME", "FILE.pt:NAME" (and .bin, .pth) where it accepts a file; a bare
// FILE names its only tensor.
#pragma once
#include <functional>
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

// True for "X.npz", "X.npz:NAME", "X.safetensors" and "X.safetensors:NAME" (and .bin, .pt,
// .pth), except a path that names an existing file (or folder) as a whole: "a.npz:b.txt" that
// exists is that file. A bare existing "X.bin" (.pt, .pth) is a model path only when it starts
// like a torch.save file (a zip, or a legacy pickle): other .bin files are read by content.
bool is_model_path(std::string_view path);

// The tensor a model path names, converted to float32. InputError "FILE:NAME: ..." when the
// file is malformed, the name is missing, the dtype is not supported or a value is not
// finite (see Finite), or the tensor has more than max_dims dimensions.
Tensor read_model_tensor(const std::string& path, Finite finite = Finite::required, std::size_t max_dims = max_rank);
// Whether the tensor a model path names holds booleans or integers (bool, int64, U8, ...): a
// mask of them is boolean. False when the path names no such tensor.
bool model_tensor_is_integer(const std::string& path);
// The dtype of a listed tensor (TensorInfo::dtype) holds booleans or integers.
bool is_integer_dtype(std::string_view dtype);
// A tensor of an archive's bytes without a file name (standard input: the bytes tell the
// format, detail::is_archive): an .npz's or a torch.save file's tensor NAME ("" = its only
// one), and whether it holds booleans or integers.
struct ArchiveTensor {
    Tensor values;
    bool integer = false;
};
ArchiveTensor archive_tensor(std::string_view bytes, const std::string& name, const std::string& source,
                             Finite finite = Finite::required, std::size_t max_dims = max_rank);
// Keys or values a model path names: an F16 or BF16 safetensors tensor stays 16-bit in memory
// (KVInput::f16, of type f16 or bf16); anything else as read_model_tensor (finite required).
KVInput read_model_kv(const std::string& path, std::size_t max_dims = max_rank);

// Every tensor of a file, in file order. The extension names the format; other files are
// recognised by content (a zip with FOLDER/data.pkl is a torch checkpoint, another zip an
// .npz, a legacy torch.save file's pickle stream (torch < 1.6) a torch checkpoint too, a JSON
// header a safetensors file); anything else is "not a model file". Only the headers are read: an npz
// member's data is neither inflated nor CRC-checked (reading the tensor does both). An npz
// member is listed under the name that reads it (see npz_tensor).
std::vector<TensorInfo> list_model_tensors(const std::string& file);

// The same on bytes in memory; `source` names them in messages.
std::vector<TensorInfo> safetensors_list(std::string_view bytes, const std::string& source);
// With `sixteen` set, an F16 or BF16 tensor goes there as it is (a float32 one is returned).
Tensor safetensors_tensor(std::string_view bytes, const std::string& name, const std::string& source,
                          Finite finite = Finite::required, std::size_t max_dims = max_rank,
                          HalfTensor* sixteen = nullptr);
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
// Several arrays, each as npz_tensor reads it, the archive's directory read once: take(i, array
// names[i]) in turn.
void npz_tensors(std::string_view bytes, const std::vector<std::string>& names, const std::string& source,
                 Finite finite, std::size_t max_dims, const std::function<void(std::size_t, Tensor&&)>& take);

// torch.save zip checkpoints: the tensors of the pickled state_dict (a nested dict's tensors
// as "OUTER.INNER"), in pickle order; any strides and storage offset.
bool is_torch_checkpoint(std::string_view bytes);
std::vector<TensorInfo> torch_list(std::string_view bytes, const std::string& source);
Tensor torch_tensor(std::string_view bytes, const std::string& name, const std::string& source,
                    Finite finite = Finite::required, std::size_t max_dims = max_rank);
// The number of items of the tuple or list a torch.save file saved (tensors or not; 0 when it
// saved something else).
std::size_t torch_sequence_items(std::string_view bytes, const std::string& source);
// Several tensors, each as torch_tensor reads it, the pickle read once: take(i, tensor names[i]).
void torch_tensors(std::string_view bytes, const std::vector<std::string>& names, const std::string& source,
                   Finite finite, std::size_t max_dims, const std::function<void(std::size_t, Tensor&&)>& take);

// Every tensor of a torch.save file, for readers that use the data in place (attn model's
// weights), listed as torch_list lists them. `data` is the view's bytes inside `bytes` (from its
// first element to its last) when they can be used as they lie: a float32, float16 or bfloat16
// storage stored uncompressed (its CRC checked) and a row-major view, its last dimension
// contiguous and its rows (the leading dimensions flattened) `row_stride` elements apart, not
// overlapping. Otherwise `data` is empty: read the tensor with torch_tensors (a copy).
// InputError unless the file saved a state_dict (a dict) holding a tensor.
struct TorchTensorBytes {
    TensorInfo info;
    std::string_view data;
    std::size_t row_stride = 0;
};
std::vector<TorchTensorBytes> torch_entries(std::string_view bytes, const std::string& source);

// Whether a model path's tensor comes from PyTorch, so that a square weight's layout cannot
// be told from its shape: a torch checkpoint, or a "*.weight" tensor of a safetensors file
// whose __metadata__ has "format": "pt". False for other paths and unreadable files.
bool is_pytorch_weight(const std::string& path);
// A safetensors file's __metadata__ value for `key`, "" when absent.
std::string safetensors_metadata(std::string_view bytes, const std::string& key, const std::string& source);

}  // namespace attn::io
