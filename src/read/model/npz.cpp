// NumPy archives (.npz): a zip of .npy files named NAME.npy, stored (numpy.savez) or
// deflated (numpy.savez_compressed). Each member goes through the .npy reader, so an array
// in an .npz is held to exactly the rules of a .npy file. Listing inflates only as far as
// each member's .npy header, so an archive of huge members (a zip bomb) lists at once.
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "attn/error.hpp"
#include "attn/model_file.hpp"
#include "runtime/utf8.hpp"
#include "read/draw_names.hpp"
#include "read/model/zip.hpp"

namespace attn::io {

namespace {

// "floats.npy" → "floats": the name numpy.load gives the array.
std::string array_name(const std::string& member) {
    constexpr std::string_view ext = ".npy";
    return member.size() > ext.size() && member.ends_with(ext) ? member.substr(0, member.size() - ext.size()) : member;
}

// The member NAME means, as numpy.load's NpzFile finds it: the member named exactly NAME,
// else NAME.npy. nullptr: none.
const ZipMember* find_member(const std::vector<ZipMember>& members, std::string_view name) {
    for (const ZipMember& m : members)
        if (m.name == name) return &m;
    for (const ZipMember& m : members)
        if (array_name(m.name) == name) return &m;
    return nullptr;
}

// The names the members are listed under: each one's array name, unless that is another
// member's exact name ("a.npy" beside a member "a" is listed as "a.npy"), so that every
// listed name reads its own member.
std::vector<std::string> listed_names(const std::vector<ZipMember>& members) {
    std::unordered_set<std::string_view> exact;
    for (const ZipMember& m : members) exact.insert(m.name);
    std::vector<std::string> out;
    for (const ZipMember& m : members) {
        std::string name = array_name(m.name);
        out.push_back(name != m.name && exact.contains(name) ? m.name : std::move(name));
    }
    return out;
}


// The dtype of an .npy header, as NumPy names it; display only (the .npy reader decides
// what it accepts).
std::string dtype_name(std::string_view npy) {
    const std::size_t key = npy.find("'descr'");
    if (npy.substr(0, 6) != "\x93NUMPY" || key == std::string_view::npos || key > 200) return "?";
    const std::size_t open = npy.find('\'', key + 7);
    const std::size_t close = open == std::string_view::npos ? open : npy.find('\'', open + 1);
    if (close == std::string_view::npos || close - open > 8) return "?";
    const std::string_view d = npy.substr(open + 1, close - open - 1);
    if (d.size() < 3) return "?";
    const std::string_view kind = d.substr(1, 1), size = d.substr(2);
    const int bits = 8 * std::atoi(std::string(size).c_str());
    if (kind == "f") return "float" + std::to_string(bits);
    if (kind == "i") return "int" + std::to_string(bits);
    if (kind == "u") return "uint" + std::to_string(bits);
    if (kind == "b") return "bool";
    return std::string(d);
}

// The first bytes of a member, as far as its .npy header reaches (numpy writes 128), so that
// listing a member never inflates its data.
std::string npy_head(std::string_view archive, const ZipMember& m, const std::string& where) {
    constexpr std::size_t first_look = 128;
    std::string head = zip_extract_prefix(archive, m, first_look, where);
    if (const std::size_t need = npy_header_size(head); need > head.size())
        head = zip_extract_prefix(archive, m, need, where);
    return head;
}

// A member's array. Its header is checked against the member's size before the data is
// inflated: 2 MiB deflating to 2 GiB of zeros behind a (1, 1) header is refused at once.
Tensor member_tensor(std::string_view archive, const ZipMember& m, const std::string& where, Finite finite,
                     std::size_t max_dims) {
    if (m.method != 0) npy_shape(npy_head(archive, m, where), std::size_t(m.size), where, max_dims);
    return parse_npy_tensor(zip_extract(archive, m, where), where, finite, max_dims);
}

}  // namespace

std::vector<TensorInfo> npz_list(std::string_view bytes, const std::string& source) {
    std::vector<TensorInfo> out;
    const std::vector<ZipMember> members = zip_members(bytes, source);
    const std::vector<std::string> names = listed_names(members);
    for (std::size_t k = 0; k < members.size(); ++k) {
        const ZipMember& m = members[k];
        const std::string& name = names[k];
        const std::string where = source + ":" + name;
        const std::string npy = npy_head(bytes, m, where);
        // The header only: listing does not judge the values (NaN is fine to list). A member
        // attn cannot read is listed with the reason (its shape too, when the header has one).
        TensorInfo info{name, dtype_name(npy), {}, true, {}};
        try {
            info.shape = npy_shape(npy, std::size_t(m.size), where, max_rank);
        } catch (const InputError& e) {
            const std::string_view what = e.what();
            info.note = what.substr(what.rfind(where + ": ", 0) == 0 ? where.size() + 2 : 0);
            const std::optional<Shape> declared = npy_declared_shape(npy);
            info.shape_known = declared.has_value();
            if (declared) info.shape = *declared;
        }
        out.push_back(std::move(info));
    }
    return out;
}

namespace {

// Array `name` of an archive whose members are listed ("" = its only one).
Tensor listed_npz_tensor(std::string_view bytes, const std::vector<ZipMember>& members, const std::string& name,
                         const std::string& source, Finite finite, std::size_t max_dims) {
    if (name.empty()) {
        if (members.size() == 1) return member_tensor(bytes, members[0], source, finite, max_dims);
        throw InputError(source + ": holds " + std::to_string(members.size()) + " arrays (" + printable_names(listed_names(members)) +
                         "): name one as " + source + ":NAME");
    }
    if (const ZipMember* m = find_member(members, name)) return member_tensor(bytes, *m, source + ":" + name, finite, max_dims);
    if (const std::string other = detail::draw_spelling(name); !other.empty())  // attn random's "draw 0" as text names it
        if (const ZipMember* m = find_member(members, other))
            return member_tensor(bytes, *m, source + ":" + other, finite, max_dims);
    throw InputError(source + ": no array '" + name + "' (it holds: " + printable_names(listed_names(members)) + ")");
}

}  // namespace

Tensor npz_tensor(std::string_view bytes, const std::string& name, const std::string& source, Finite finite,
                  std::size_t max_dims) {
    return listed_npz_tensor(bytes, zip_members(bytes, source), name, source, finite, max_dims);
}

void npz_tensors(std::string_view bytes, const std::vector<std::string>& names, const std::string& source,
                 Finite finite, std::size_t max_dims, const std::function<void(std::size_t, Tensor&&)>& take) {
    const std::vector<ZipMember> members = zip_members(bytes, source);
    // The members by exact name, then by array name, as find_member finds them (a search per
    // name: n² for n arrays).
    std::unordered_map<std::string, const ZipMember*> exact, array;
    for (const ZipMember& m : members) exact.emplace(m.name, &m), array.emplace(array_name(m.name), &m);
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto e = exact.find(names[i]);
        const auto a = e == exact.end() ? array.find(names[i]) : array.end();
        const ZipMember* m = e != exact.end() ? e->second : a != array.end() ? a->second : nullptr;
        take(i, m && !names[i].empty() ? member_tensor(bytes, *m, source + ":" + names[i], finite, max_dims)
                                       : listed_npz_tensor(bytes, members, names[i], source, finite, max_dims));
    }
}

}  // namespace attn::io
