// libFuzzer harness: the model-file readers (.npz: zip + inflate + npy; safetensors; torch.save
// checkpoints: zip + the restricted unpickler, or the legacy format's pickles and storages).
// An input whose first byte is 2 is taken as a torch checkpoint, another even one as an .npz
// (for both, the zip signature is prepended when missing, unless a torch input starts as a
// legacy file does), an odd one as a safetensors file. Every tensor listed is read. Only
// attn::Error may escape; a tensor read must have the shape the listing gave.
#include <cstddef>
#include <cstdint>
#include <string>

#include "attn/error.hpp"
#include "attn/model_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const bool torch = data[0] == 2, npz = !torch && (data[0] & 1) == 0;
    std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
    // (a legacy torch.save file, a pickle stream, keeps its own start)
    const bool legacy = torch && bytes.rfind("\x80\x02\x8a", 0) == 0;
    if ((npz || torch) && !legacy && bytes.rfind("PK\x03\x04", 0) != 0) bytes.insert(0, "PK\x03\x04");
    try {
        const auto list = torch ? attn::io::torch_list(bytes, "fuzz.pt")
                          : npz ? attn::io::npz_list(bytes, "fuzz.npz")
                                : attn::io::safetensors_list(bytes, "fuzz");
        for (const auto& t : list) {
            try {
                const attn::Tensor x = torch ? attn::io::torch_tensor(bytes, t.name, "fuzz.pt")
                                       : npz ? attn::io::npz_tensor(bytes, t.name, "fuzz.npz")
                                             : attn::io::safetensors_tensor(bytes, t.name, "fuzz");
                // A tensor that reads was listed with its shape and without a note.
                if (!(x.shape() == t.shape) || !t.shape_known || !t.note.empty()) __builtin_trap();
            } catch (const attn::Error&) {
            }
        }
    } catch (const attn::Error&) {
    }
    return 0;
}
