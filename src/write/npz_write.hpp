// Internal to src/write and the CLI: NumPy archives (.npz) as numpy.savez writes them, a zip
// of NAME.npy members stored uncompressed, which numpy.load and attn's FILE.npz:NAME read.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/tensor.hpp"

namespace attn::io::detail {

// One member as it will be written: its name in the archive (without ".npy") and the size of
// its .npy bytes.
struct NpzMember {
    std::string name;
    std::uint64_t npy_size = 0;
};

// The archive's size in bytes. UsageError when it cannot be written: two members of one name,
// or beyond what a zip without zip64 holds (4 GiB, 65535 members), checked before anything is
// written.
std::uint64_t npz_size(const std::vector<NpzMember>& members);

// Streams an archive to `sink`: each member's local header (its CRC-32 summed over the data
// first, so the header is complete as numpy.savez writes it: no data descriptors), its .npy
// bytes, then the central directory. Every member has the fixed time 1980-01-01 00:00, so
// that the same results give the same bytes.
class NpzWriter {
public:
    explicit NpzWriter(std::function<void(std::string_view)> sink) : sink_(std::move(sink)) {}
    // NAME.npy: `npy_header`, then the rows of `data` as '<f4' (for_each_npy_row).
    void add(const std::string& name, std::string_view npy_header, const TensorView& data);
    // NAME.npy holding these .npy bytes.
    void add(const std::string& name, std::string_view npy_bytes);
    // The central directory and its end record.
    void finish();

private:
    struct Entry {
        std::string file;  // NAME.npy
        std::uint32_t crc = 0, size = 0, offset = 0;
    };
    void local_header(const std::string& name, std::uint32_t crc, std::uint64_t size);
    void put(std::string_view bytes);
    std::function<void(std::string_view)> sink_;
    std::vector<Entry> entries_;
    std::uint64_t written_ = 0;
};

}  // namespace attn::io::detail
