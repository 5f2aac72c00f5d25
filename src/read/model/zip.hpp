// The parts of ZIP (PKWARE APPNOTE) and DEFLATE (RFC 1951) that NumPy's .npz files use:
// stored and deflated members, CRC-32 checked, every header validated against the bytes
// present before anything is allocated. Internal to the readers of model files.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/crc32.hpp"

namespace attn::io {

// Decodes a raw DEFLATE stream that must expand to exactly `size` bytes and end at the end
// of `compressed`. Errors are InputError "SOURCE: message". With limit < size, only the
// first `limit` bytes: decoding stops there, so the rest of the stream is not checked.
std::string inflate(std::string_view compressed, std::size_t size, const std::string& source,
                    std::size_t limit = std::string::npos);

struct ZipMember {
    std::string name;
    std::uint16_t method = 0;  // 0 stored, 8 deflated
    std::uint32_t crc = 0;
    std::uint64_t compressed_size = 0, size = 0;
    std::uint64_t data_offset = 0;  // of the member's data in the archive
};

// The members listed in the central directory, with their data located through the local
// headers and checked to lie inside the archive without overlapping.
std::vector<ZipMember> zip_members(std::string_view archive, const std::string& source);

// A member's bytes, inflated if needed, CRC-checked.
std::string zip_extract(std::string_view archive, const ZipMember& m, const std::string& source);
// Its first min(n, size) bytes, inflating no further (no CRC check: the rest is not read).
std::string zip_extract_prefix(std::string_view archive, const ZipMember& m, std::size_t n, const std::string& source);

}  // namespace attn::io
