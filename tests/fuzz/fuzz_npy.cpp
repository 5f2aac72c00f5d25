// libFuzzer harness: the .npy reader. The input is taken as the bytes after the magic
// "\x93NUMPY" (the dictionary and seeds hold whole files too, so both shapes are explored).
// Invariants as for text: finite where required, bit-exact round trips, only attn::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "attn/error.hpp"
#include "roundtrip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (bytes.rfind("\x93NUMPY", 0) != 0) bytes.insert(0, "\x93NUMPY");
    for (auto finite : {attn::io::Finite::required, attn::io::Finite::allow_neg_inf}) {
        try {
            fuzz::check_matrix(attn::io::parse_npy(bytes, "fuzz.npy", finite), finite);
        } catch (const attn::Error&) {
        }
    }
    return 0;
}
