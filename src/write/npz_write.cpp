// Writing NumPy archives (.npz): the ZIP records (PKWARE APPNOTE 4.3.7 local header, 4.3.12
// central directory header, 4.3.16 end of central directory) of stored members. The reader
// is read/model/zip.cpp.
#include "write/npz_write.hpp"

#include <algorithm>
#include <set>

#include "attn/error.hpp"
#include "runtime/crc32.hpp"
#include "write/output_file.hpp"

namespace attn::io::detail {

namespace {

constexpr std::uint64_t zip_max = 0xffffffffu;  // sizes and offsets without zip64
constexpr std::size_t local_size = 30, central_size = 46, end_size = 22, max_members = 0xffff;
constexpr std::uint16_t version = 20;             // 2.0: what stored members need
constexpr std::uint16_t made_by = 3 << 8 | 20;    // Unix, 2.0: the external attributes are a mode
constexpr std::uint32_t file_mode = 0100644u << 16;
constexpr std::uint16_t dos_date = 1 << 5 | 1;    // 1980-01-01 (the epoch of DOS dates)

void le(std::string& out, std::uint64_t v, int bytes) {
    for (int k = 0; k < bytes; ++k) out += char((v >> (8 * k)) & 0xff);
}

// Bit 11: the name is UTF-8 (set only when it is not plain ASCII, as Python's zipfile does).
std::uint16_t name_flags(const std::string& file) {
    return std::any_of(file.begin(), file.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; })
               ? 1 << 11
               : 0;
}

// The common part of the local and central headers: version needed .. extra field length.
std::string common_fields(const std::string& file, std::uint32_t crc, std::uint64_t size) {
    std::string h;
    le(h, version, 2);
    le(h, name_flags(file), 2);
    le(h, 0, 2);  // stored
    le(h, 0, 2);  // 00:00:00
    le(h, dos_date, 2);
    le(h, crc, 4);
    le(h, size, 4);  // compressed
    le(h, size, 4);
    le(h, file.size(), 2);
    le(h, 0, 2);  // no extra field
    return h;
}

}  // namespace

std::uint64_t npz_size(const std::vector<NpzMember>& members) {
    if (members.size() > max_members)
        throw UsageError("npz output of " + std::to_string(members.size()) + " arrays: a zip without zip64 holds at most " +
                         std::to_string(max_members));
    std::set<std::string> names;
    std::uint64_t total = end_size;
    for (const NpzMember& m : members) {
        if (!names.insert(m.name).second)
            throw UsageError("npz output: two results named '" + m.name + "' (an archive holds one array per name)");
        const std::uint64_t file = m.name.size() + 4;
        if (file > 0xffff) throw UsageError("npz output: the name '" + m.name.substr(0, 40) + "...' is too long");
        total += local_size + file + m.npy_size + central_size + file;
        if (m.npy_size > zip_max || total > zip_max)
            throw UsageError("npz output of more than 4 GiB: attn writes zip archives without zip64; write npy "
                             "files into a folder instead");
    }
    return total;
}

void NpzWriter::put(std::string_view bytes) {
    sink_(bytes);
    written_ += bytes.size();
}

void NpzWriter::local_header(const std::string& name, std::uint32_t crc, std::uint64_t size) {
    // npz_size was checked by the caller; these are the writer's own guards.
    if (size > zip_max || written_ > zip_max || entries_.size() >= max_members)
        throw UsageError("npz output beyond the limits of a zip archive without zip64");
    Entry e{name + ".npy", crc, std::uint32_t(size), std::uint32_t(written_)};
    std::string h;
    le(h, 0x04034b50u, 4);
    h += common_fields(e.file, crc, size);
    h += e.file;
    put(h);
    entries_.push_back(std::move(e));
}

void NpzWriter::add(const std::string& name, std::string_view npy_header, const TensorView& data) {
    std::uint32_t crc = crc32(npy_header);
    std::uint64_t size = npy_header.size();
    for_each_npy_row(data, [&](std::string_view rows) {
        crc = crc32(rows, crc);
        size += rows.size();
    });
    local_header(name, crc, size);
    put(npy_header);
    for_each_npy_row(data, [&](std::string_view rows) { put(rows); });
}

void NpzWriter::add(const std::string& name, std::string_view npy_bytes) {
    local_header(name, crc32(npy_bytes), npy_bytes.size());
    put(npy_bytes);
}

void NpzWriter::finish() {
    const std::uint64_t directory = written_;
    std::string cd;
    for (const Entry& e : entries_) {
        le(cd, 0x02014b50u, 4);
        le(cd, made_by, 2);
        cd += common_fields(e.file, e.crc, e.size);
        le(cd, 0, 2);  // no comment
        le(cd, 0, 2);  // disk 0
        le(cd, 0, 2);  // internal attributes
        le(cd, file_mode, 4);
        le(cd, e.offset, 4);
        cd += e.file;
    }
    const std::uint64_t directory_size = cd.size();
    if (directory + directory_size > zip_max) throw UsageError("npz output beyond the limits of a zip archive without zip64");
    le(cd, 0x06054b50u, 4);
    le(cd, 0, 2);  // this disk
    le(cd, 0, 2);  // the directory's disk
    le(cd, entries_.size(), 2);
    le(cd, entries_.size(), 2);
    le(cd, directory_size, 4);
    le(cd, directory, 4);
    le(cd, 0, 2);  // no comment
    put(cd);
}

}  // namespace attn::io::detail
