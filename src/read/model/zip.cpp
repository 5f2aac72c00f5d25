// ZIP archives as NumPy writes them (numpy.savez / savez_compressed): the end-of-central-
// directory record, the central directory, and each member's local header, all checked
// against each other and against the bytes present. Multi-disk archives, encryption and
// methods other than stored/deflate are refused by name.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

#include "attn/error.hpp"
#include "read/content_hint.hpp"
#include "read/header_cursor.hpp"
#include "read/input_bytes.hpp"
#include "read/model/zip.hpp"
#include "runtime/system_memory.hpp"

namespace attn::io {

namespace {

constexpr std::uint32_t sig_local = 0x04034b50, sig_central = 0x02014b50, sig_end = 0x06054b50;
constexpr std::size_t end_size = 22, central_size = 46, local_size = 30;
// A member copied or inflated into memory (zip_extract): the same 2 GiB bound as every other
// input. Listing it, or reading a stored member in place, has none.
constexpr std::uint64_t max_member_bytes = detail::max_input_bytes;
// DEFLATE cannot expand more than 1032:1; a larger declared size is a lie (or a bomb).
constexpr std::uint64_t max_deflate_ratio = 1032;

std::uint64_t le(std::string_view b, std::size_t at, std::size_t n) {
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < n; ++k) v |= std::uint64_t(static_cast<unsigned char>(b[at + k])) << (8 * k);
    return v;
}


}  // namespace

std::vector<ZipMember> zip_members(std::string_view a, const std::string& source) {
    auto fail = [&](const std::string& m) -> void { throw InputError(source + ": " + m); };
    if (a.size() < end_size || le(a, 0, 4) != sig_local) {
        if (a.size() >= end_size && le(a, 0, 4) == sig_end) fail("an empty .npz archive (no arrays)");
        fail("not a model file (no zip signature: an .npz or torch.save file is a zip archive)" +
             detail::content_hint(a.substr(0, 16), detail::Hint::not_zip));
    }
    // The end record sits at the very end, followed only by its comment (at most 64 KiB).
    std::size_t end = std::string_view::npos;
    const std::size_t lowest = a.size() > end_size + 0xffff ? a.size() - end_size - 0xffff : 0;
    for (std::size_t at = a.size() - end_size + 1; at-- > lowest;)
        if (le(a, at, 4) == sig_end && at + end_size + le(a, at + 20, 2) == a.size()) {
            end = at;
            break;
        }
    if (end == std::string_view::npos) fail("truncated or damaged zip archive (no end of central directory)");
    const std::uint64_t disk = le(a, end + 4, 2), cd_disk = le(a, end + 6, 2), here = le(a, end + 8, 2),
                        total = le(a, end + 10, 2), cd_size = le(a, end + 12, 4), cd_offset = le(a, end + 16, 4);
    if (here == 0xffff || total == 0xffff || cd_size == 0xffffffff || cd_offset == 0xffffffff)
        fail("zip64 archives (more than 65535 members or 4 GiB) are not supported");
    if (disk != 0 || cd_disk != 0 || here != total) fail("multi-part zip archives are not supported");
    if (total == 0) fail("an empty .npz archive (no arrays)");
    if (cd_offset > end || cd_size > end - cd_offset) fail("damaged zip archive: central directory outside the file");

    std::vector<ZipMember> members;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> extents;  // [local header, data end)
    std::set<std::string> names;
    std::size_t at = std::size_t(cd_offset);
    const std::size_t cd_end = std::size_t(cd_offset + cd_size);
    for (std::uint64_t i = 0; i < total; ++i) {
        const std::string which = "zip member " + std::to_string(i + 1);
        if (cd_end - at < central_size || le(a, at, 4) != sig_central) fail("damaged zip archive: bad central directory entry");
        const std::uint64_t flags = le(a, at + 8, 2), name_len = le(a, at + 28, 2), extra_len = le(a, at + 30, 2),
                            comment_len = le(a, at + 32, 2);
        if (cd_end - at - central_size < name_len + extra_len + comment_len)
            fail("damaged zip archive: central directory entry runs past its end");
        ZipMember m;
        m.method = std::uint16_t(le(a, at + 10, 2));
        m.crc = std::uint32_t(le(a, at + 16, 4));
        m.compressed_size = le(a, at + 20, 4);
        m.size = le(a, at + 24, 4);
        std::uint64_t local = le(a, at + 42, 4);
        m.name = std::string(a.substr(at + central_size, name_len));
        if (m.name.empty()) fail(which + " has an empty name");
        // Zip64 extra field (id 1): the 64-bit values of the fields set to 0xffffffff, in order.
        std::size_t x = at + central_size + name_len;
        const std::size_t x_end = x + extra_len;
        while (x_end - x >= 4) {
            const std::uint64_t id = le(a, x, 2), len = le(a, x + 2, 2);
            if (x_end - x - 4 < len) fail("damaged zip archive: extra field of '" + detail::printable(m.name, 60) + "'");
            if (id == 1) {
                std::size_t f = x + 4;
                for (std::uint64_t* field : {&m.size, &m.compressed_size, &local}) {
                    if (*field != 0xffffffff) continue;
                    if (f + 8 > x + 4 + len) fail("damaged zip archive: short zip64 field of '" + detail::printable(m.name, 60) + "'");
                    *field = le(a, f, 8);
                    f += 8;
                }
            }
            x += 4 + len;
        }
        at = x_end + comment_len;
        const std::string shown = "'" + detail::printable(m.name, 60) + "'";
        if (!names.insert(m.name).second) fail("zip member " + shown + " appears twice");
        if (flags & 1) fail("zip member " + shown + " is encrypted");
        if (m.method != 0 && m.method != 8)
            fail("zip member " + shown + " uses compression method " + std::to_string(m.method) +
                 " (only stored and deflate are supported)");
        if (m.method == 0 && m.compressed_size != m.size) fail("damaged zip archive: stored member " + shown + " changes size");
        if (m.method == 8 && m.size > m.compressed_size * max_deflate_ratio + 64)
            fail("damaged zip archive: member " + shown + " claims " + std::to_string(m.size) + " bytes from " +
                 std::to_string(m.compressed_size) + " compressed (more than deflate can expand)");

        // The local header must agree with the central directory and the data must lie
        // before the central directory.
        if (local > cd_offset || cd_offset - local < local_size || le(a, std::size_t(local), 4) != sig_local)
            fail("damaged zip archive: no local header for " + shown);
        const std::size_t lh = std::size_t(local);
        const std::uint64_t l_name = le(a, lh + 26, 2), l_extra = le(a, lh + 28, 2);
        if (le(a, lh + 8, 2) != m.method) fail("damaged zip archive: local and central headers of " + shown + " disagree");
        if (cd_offset - local - local_size < l_name + l_extra ||
            a.substr(lh + local_size, l_name) != m.name)
            fail("damaged zip archive: local and central headers of " + shown + " disagree");
        m.data_offset = local + local_size + l_name + l_extra;
        if (cd_offset - m.data_offset < m.compressed_size) fail("truncated zip archive: data of " + shown + " is cut short");
        extents.emplace_back(local, m.data_offset + m.compressed_size);
        members.push_back(std::move(m));
    }
    if (at != cd_end) fail("damaged zip archive: central directory size does not match its entries");
    std::sort(extents.begin(), extents.end());
    for (std::size_t k = 1; k < extents.size(); ++k)
        if (extents[k].first < extents[k - 1].second) fail("damaged zip archive: members overlap");
    return members;
}

std::string zip_extract(std::string_view archive, const ZipMember& m, const std::string& source) {
    if (m.size > max_member_bytes)
        throw InputError(source + ": zip member '" + detail::printable(m.name, 60) + "' is larger than 2 GiB");
    const std::string_view data = archive.substr(std::size_t(m.data_offset), std::size_t(m.compressed_size));
    if (m.method == 0) check_available(data.size());  // a stored member is copied out
    std::string out = m.method == 0 ? std::string(data) : inflate(data, std::size_t(m.size), source);
    if (crc32(out) != m.crc) throw InputError(source + ": CRC mismatch: the archive is damaged");
    return out;
}

std::string zip_extract_prefix(std::string_view archive, const ZipMember& m, std::size_t n, const std::string& source) {
    const std::string_view data = archive.substr(std::size_t(m.data_offset), std::size_t(m.compressed_size));
    return m.method == 0 ? std::string(data.substr(0, n)) : inflate(data, std::size_t(m.size), source, n);
}

}  // namespace attn::io
