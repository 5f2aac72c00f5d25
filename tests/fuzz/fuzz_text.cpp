// libFuzzer harness: the text reader (parse_matrix on bytes that are not .npy), both
// finiteness modes. Invariants: no crash or UB; a success is finite where required and
// round-trips bit for bit through the csv and npy writers; failures are attn::Error only.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attn/error.hpp"
#include "roundtrip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x93) return -1;  // the npy harness's
    for (auto finite : {attn::io::Finite::required, attn::io::Finite::allow_neg_inf}) {
        try {
            fuzz::check_matrix(attn::io::parse_matrix(bytes, "fuzz.txt", finite), finite);
        } catch (const attn::Error&) {
        }
    }
    return 0;
}
