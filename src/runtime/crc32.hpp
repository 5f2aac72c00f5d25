// CRC-32 (IEEE 802.3, as zip and zlib compute it): the checksum of every zip member, checked
// when an .npz is read (read/model/zip.cpp) and written when one is (write/npz_write.cpp).
#pragma once
#include <cstdint>
#include <string_view>

namespace attn::io {

// The CRC-32 of bytes; with `crc` the CRC-32 of what came before, that of the two together
// (as zlib's crc32(crc, buf, len)), so that a stream is summed a piece at a time.
std::uint32_t crc32(std::string_view bytes, std::uint32_t crc = 0) noexcept;

}  // namespace attn::io
