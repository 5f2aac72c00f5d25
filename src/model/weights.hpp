// The weights of a model folder where they lie: model.safetensors or pytorch_model.bin, or the
// shards their index.json names, mapped (not read); each tensor looked up by its Hugging Face
// name and used in place (float32, float16 or bfloat16 elements). A tensor that cannot be used
// as it lies (a .bin's strided view, deflated storage or float64; data not aligned to its
// element) is copied as float32.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "attn/model_file.hpp"
#include "attn/ops.hpp"
#include "attn/tensor.hpp"
#include "read/model/elements.hpp"

namespace attn::io::detail {
class MappedFile;
}

namespace attn::model {

// InputError unless path is a regular file (links followed): a model folder's files are read
// or mapped whole, and opening a FIFO there would wait for a writer.
void require_regular_file(const std::string& path);

// One weight tensor in a mapped file.
struct Weight {
    enum class Type { f32, f16, bf16 } type = Type::f32;
    const void* data = nullptr;
    Shape shape;
    std::size_t ld = 0;  // elements between rows of a 2-D weight; 0: dense (cols)
    std::string name;  // as in the file, for messages
    std::string folder;  // the model folder, for messages
    const unsigned char* f64 = nullptr;  // an F64 weight's elements in the file (copied as float32), for messages
    mutable bool checked = false;  // scanned for non-finite values (Weights::get, on first use)

    std::size_t rows() const noexcept { return shape.back(2); }
    std::size_t cols() const noexcept { return shape.back(1); }
    std::size_t stride() const noexcept { return ld ? ld : cols(); }
    // Element i as float32 (exact for float16 and bfloat16).
    float at(std::size_t i) const noexcept;
    // Row r of a 2-D weight (or the vector) widened into out.
    void row(std::size_t r, float* out) const noexcept;
    // The same, InputError naming the tensor, row and column when the row holds NaN or ±inf
    // (an embedding table's row that a token picks: Weights::table).
    void finite_row(std::size_t r, float* out) const;
    // Why element k (C order) with value v is not finite, where it is, 0-based as torch indexes
    // a weight: "row 1, column 1 (0-based): non-finite value 'nan' ...", or "...: 1e+300 in the
    // file overflows float32" (F64).
    std::string nonfinite(std::size_t k, float v) const;
    // The whole tensor widened (for the small vectors: norms and biases).
    std::vector<float> values() const;
};

class Weights {
public:
    // Maps folder/model.safetensors or the shards of folder/model.safetensors.index.json.
    explicit Weights(const std::string& folder);
    ~Weights();

    // The first of `prefixes` ("" included when wanted) under which `probe` exists; the
    // names later asked for are taken under it (BertModel's own names, or BertForX's "bert.").
    void choose_prefix(const std::vector<std::string>& prefixes, const std::string& probe);
    bool has(const std::string& name) const;
    // InputError unless the tensor prefix + name is there and readable (its shape not checked).
    void require(const std::string& name) const;
    // Whether some tensor's name begins with prefix + `start` ("h.3.": a layer's).
    bool has_any(const std::string& start) const;
    // InputError: the weights have no tensor prefix + `name` (`why`, when given, said after).
    [[noreturn]] void missing(const std::string& name, const std::string& why = "") const;
    // The tensor prefix + name, which must have this shape and finite values (scanned on first
    // use); InputError naming the tensor and the files otherwise.
    const Weight& get(const std::string& name, std::initializer_list<std::size_t> shape) const;
    // A lookup table (an embedding) prefix + name of this shape, not scanned: only the rows the
    // tokens pick are read, each checked as it is (Weight::finite_row).
    const Weight& table(const std::string& name, std::initializer_list<std::size_t> shape) const;
    // The tensors under prefix + `start` that no get or table has asked for, by their names in
    // the file, without the buffers checkpoints carry that nothing reads (a rotary inv_freq,
    // GPT-2's masked_bias and the 4-D causal-mask bias of GPT-2, GPT-Neo and GPT-NeoX).
    std::vector<std::string> unused(const std::string& start) const;

private:
    const Weight& find(const std::string& name, std::initializer_list<std::size_t> shape) const;
    void add_legacy_names();
    void add_torch_file(const std::string& name);  // pytorch_model.bin or one of its shards
    void add(Weight w, const std::string& name, const std::string& path);
    Weight widened_copy(const Weight& w, io::detail::FloatKind kind);

    std::string folder_, files_text_, prefix_;
    std::vector<std::string> unmatched_;  // choose_prefix's prefixes, when the probe was under none
    std::vector<std::unique_ptr<io::detail::MappedFile>> files_;
    std::vector<Tensor> owned_;  // tensors read or widened into memory (Weights::add_torch_file, widened_copy)
    std::map<std::string, Weight, std::less<>> tensors_;
    mutable std::set<std::string> used_;  // the names in the file of the tensors find returned
};

}  // namespace attn::model
