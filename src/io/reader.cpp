// Reading inputs: .npy or text recognised by content, into a tensor; and the 2-D view of
// that for callers that take matrices only.
#include <utility>

#include "attn/error.hpp"
#include "attn/io.hpp"
#include "attn/model_file.hpp"
#include "io/input_bytes.hpp"
#include "io/output_file.hpp"

namespace attn::io {

namespace {

Matrix as_matrix(Tensor&& t, const std::string& source) {
    if (t.rank() > 2) throw InputError(source + ": expected a matrix, got shape " + t.shape().text());
    return std::move(t).to_matrix();
}

}  // namespace

Tensor parse_tensor(std::string_view bytes, const std::string& source, Finite finite, std::size_t max_dims) {
    // .npy starts with "\x93NUMPY"; a first byte 0x93 can never begin valid text, so even a
    // damaged magic is reported by the npy reader.
    if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x93)
        return parse_npy_tensor(bytes, source, finite, max_dims);
    if (detail::has_lone_cr(bytes)) return parse_text_tensor(detail::lone_cr_to_lf(bytes), source, finite, max_dims);
    return parse_text_tensor(bytes, source, finite, max_dims);
}

Tensor read_tensor(const std::string& path, Finite finite, std::size_t max_dims) {
    if (is_model_path(path)) return read_model_tensor(path, finite, max_dims);  // FILE.npz:NAME, FILE.safetensors:NAME
    const detail::InputBytes bytes(path);
    return parse_tensor(bytes.view(), detail::display_name(path), finite, max_dims);
}

KVInput read_kv_tensor(const std::string& path, std::size_t max_dims) {
    if (is_model_path(path)) {
        KVInput kv;
        kv.f32 = read_model_tensor(path, Finite::required, max_dims);
        return kv;
    }
    const detail::InputBytes bytes(path);
    return parse_kv_tensor(bytes.view(), detail::display_name(path), max_dims);
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
