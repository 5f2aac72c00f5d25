// The restricted unpickler (src/read/model/pickle.cpp), opcode by opcode, on pickles written
// here byte by byte (the encodings of CPython's Lib/pickle.py), and the torch.save layer on
// the fixtures of data/models/torch_save (generate.py).
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/model_file.hpp"
#include "read/model/pickle.hpp"
#include "runtime/crc32.hpp"

using attn::InputError;
using attn::io::pickle::Node;
using attn::io::pickle::Value;
using K = attn::io::pickle::Node::Kind;

namespace {

Value load(const std::string& b) { return attn::io::pickle::unpickle(b, "p"); }

std::string error_of(const std::string& b) {
    try {
        load(b);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

std::string error_of_list(const std::string& zip) {
    try {
        attn::io::torch_list(zip, "bomb.pt");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

std::string error_of_read(const std::string& zip) {
    try {
        attn::io::torch_tensor(zip, "w", "x.pt");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    REQUIRE(f.good());
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Pickle bytes written as text with {hh} for any byte (C's \x escapes would swallow the hex
// letters after them).
std::string x(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s[i] == '{' && i + 3 < s.size() && s[i + 3] == '}') out += char(std::stoi(s.substr(i + 1, 2), nullptr, 16)), i += 3;
        else out += s[i];
    return out;
}
// Protocol 2: PROTO 2, body, STOP.
std::string p2(const std::string& body) { return x("{80}{02}" + body + "."); }

// Little-endian bytes of v.
std::string le(std::uint64_t v, int n) {
    std::string out;
    for (int k = 0; k < n; ++k) out += char((v >> (8 * k)) & 0xff);
    return out;
}

// A torch.save archive as Python's zipfile writes it with ZIP_STORED: archive/data.pkl, the
// storages data/KEY and version; then the members `more`, as they are named.
std::string torch_zip(const std::string& pkl, const std::vector<std::pair<std::string, std::string>>& storages,
                      const std::vector<std::pair<std::string, std::string>>& more = {}) {
    std::vector<std::pair<std::string, std::string>> members = {{"archive/data.pkl", pkl}};
    for (const auto& [key, bytes] : storages) members.emplace_back("archive/data/" + key, bytes);
    members.emplace_back("archive/version", "3\n");
    members.insert(members.end(), more.begin(), more.end());
    std::string out, cd;
    for (const auto& [name, data] : members) {
        const std::string fields = le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(attn::io::crc32(data), 4) +
                                   le(data.size(), 4) + le(data.size(), 4) + le(name.size(), 2) + le(0, 2);
        cd += le(0x02014b50, 4) + le(20, 2) + fields + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(out.size(), 4) + name;
        out += le(0x04034b50, 4) + fields + name + data;
    }
    return out + cd + le(0x06054b50, 4) + le(0, 4) + le(members.size(), 2) + le(members.size(), 2) + le(cd.size(), 4) +
           le(out.size(), 4) + le(0, 2);
}

// _rebuild_tensor_v2 of a float32 storage data/0 of `numel` elements, offset 0.
std::string tensor_pickle(std::uint64_t numel, const std::vector<std::uint32_t>& shape, const std::vector<std::uint32_t>& stride) {
    std::string size = "(", step = "(";
    for (std::uint32_t n : shape) size += "J" + le(n, 4);
    for (std::uint32_t n : stride) step += "J" + le(n, 4);
    return "ctorch._utils\n_rebuild_tensor_v2\n(" + x("(U{07}storagectorch\nFloatStorage\nU{01}0U{03}cpuJ") + le(numel, 4) +
           "tQ" + x("K{00}") + size + "t" + step + "t" + x("{89}") + "ccollections\nOrderedDict\n)RtR";
}

// {'w': tensor}, then `levels` - 1 dicts each holding the one before twice ('a' and 'b'), all
// through the memo: 2^(levels-1) names from a few hundred bytes.
std::string laughs(int levels) {
    std::string p = x("{80}{02}}q{00}U{01}w") + tensor_pickle(4, {2, 2}, {2, 1}) + "s0";
    for (int i = 1; i < levels; ++i)
        p += "}q" + le(i, 1) + x("U{01}ah") + le(i - 1, 1) + "s" + x("U{01}bh") + le(i - 1, 1) + "s0";
    return p + "h" + le(levels - 1, 1) + ".";
}

}  // namespace

TEST_CASE("pickle: integers, floats, text, None and booleans") {
    CHECK(load(p2("K{07}"))->integer == 7);                                 // BININT1
    CHECK(load(p2(x("M{34}{12}")))->integer == 0x1234);        // BININT2
    CHECK(load(p2("J{fe}{ff}{ff}{ff}"))->integer == -2);                    // BININT, signed
    CHECK(load(p2(x("{8a}{01}{ff}")))->integer == -1);         // LONG1, sign-extended
    CHECK(load(p2(x("{8a}{02}{00}{80}")))->integer == -32768);
    CHECK(load(p2(x("{8a}{00}")))->integer == 0);               // LONG1 of no bytes is 0
    CHECK(load(p2(x("{8a}{08}{01}{00}{00}{00}{00}{00}{00}{01}")))->integer == 0x0100000000000001);
    CHECK(error_of(p2(x("{8a}{09}") + std::string(9, '\1'))).find("beyond 64 bits") != std::string::npos);
    CHECK(load(p2(x("G{3f}{f8}{00}{00}{00}{00}{00}{00}")))->real == 1.5);  // BINFLOAT, big-endian
    CHECK(load(p2(x("X{02}{00}{00}{00}hi")))->text == "hi");            // BINUNICODE
    CHECK(load(x("{80}{04}{8c}{02}hi."))->text == "hi");               // SHORT_BINUNICODE
    CHECK(load(p2(x("{8d}{01}{00}{00}{00}{00}{00}{00}{00}a")))->text == "a");       // BINUNICODE8
    CHECK(load(p2("U{01}z"))->text == "z");                                         // SHORT_BINSTRING
    CHECK(load(p2("N"))->kind == K::none);
    CHECK(load(p2("{88}"))->integer == 1);
    CHECK(load(p2("{89}"))->kind == K::boolean);
}

TEST_CASE("pickle: tuples, lists, dicts, marks and the stack") {
    const Value t = load(p2("K{01}K{02}K{03}{87}"));  // TUPLE3
    REQUIRE(t->kind == K::tuple);
    REQUIRE(t->items.size() == 3);
    CHECK(t->items[2]->integer == 3);
    CHECK(load(p2(")"))->items.empty());
    CHECK(load(p2("K{01}{85}"))->items.size() == 1);
    CHECK(load(p2("K{01}K{02}{86}"))->items.size() == 2);
    CHECK(load(p2("(K{01}K{02}K{03}K{04}t"))->items.size() == 4);     // MARK ... TUPLE
    CHECK(load(p2("]K{01}a(K{02}K{03}e"))->items.size() == 3);          // APPEND, APPENDS
    CHECK(load(p2("(K{01}K{02}l"))->items.size() == 2);                 // LIST
    const Value d = load(p2("}U{01}aK{01}sU{01}bK{02}s(U{01}cK{03}U{01}aK{09}u"));  // SETITEM(S)
    REQUIRE(d->kind == K::dict);
    REQUIRE(d->entries.size() == 3);  // 'a' set twice keeps its place, takes the last value
    CHECK(d->entries[0].first->text == "a");
    CHECK(d->entries[0].second->integer == 9);
    CHECK(load(p2("(U{01}aK{01}d"))->entries.size() == 1);  // DICT
    CHECK(load(p2("K{01}K{02}" "0"))->integer == 1);         // POP
    CHECK(load(p2("K{01}(K{02}K{03}" "1"))->integer == 1);   // POP_MARK
    CHECK(load(p2("K{05}" "2{86}"))->items[1]->integer == 5);  // DUP
    CHECK(error_of(p2("t")).find("no MARK") != std::string::npos);
    CHECK(error_of(p2("0K{01}")).find("empty stack") != std::string::npos);
    CHECK(error_of(p2("(0")).find("empty stack") != std::string::npos);  // a MARK is a floor
    CHECK(error_of(p2("K{01}K{02}")).find("left on the stack") != std::string::npos);
    CHECK(error_of(p2("K{00}K{01}K{02}s")).find("not a dict") != std::string::npos);
    CHECK(error_of(p2("}K{01}" "a")).find("not a list") != std::string::npos);
}

TEST_CASE("pickle: the memo, frames and protocol headers") {
    CHECK(load(p2("K{07}q{03}" "0h{03}"))->integer == 7);                                         // BINPUT, BINGET
    CHECK(load(p2(x("K{07}r{00}{01}{00}{00}" "0j{00}{01}{00}{00}")))->integer == 7);  // LONG_*
    CHECK(load(x("{80}{04}K{07}{94}" "0h{00}."))->integer == 7);                     // MEMOIZE
    CHECK(load(p2("K{07}p12\n0g12\n"))->integer == 7);                                            // PUT, GET
    CHECK(load(x("{80}{04}{95}{02}{00}{00}{00}{00}{00}{00}{00}K{07}."))->integer == 7);         // FRAME
    CHECK(error_of(p2("h{09}")).find("memo entry 9 was never stored") != std::string::npos);
    // A value in the memo is shared: a dict filled after it was memoised is seen filled.
    const Value d = load(p2("}q{00}U{01}aK{01}s" "0h{00}"));
    CHECK(d->entries.size() == 1);
}

TEST_CASE("pickle: globals and calls are only the state_dict ones, modelled, never run") {
    CHECK(load(p2("ccollections\nOrderedDict\n)R"))->kind == K::dict);
    CHECK(load(p2("ctorch\nFloatStorage\n"))->text == "torch.FloatStorage");
    for (const char* g : {"cposix\nsystem\n", "cbuiltins\neval\n", "c__builtin__\ngetattr\n", "ctorch\nload\n",
                          "ctorch._utils\n_rebuild_qtensor\n", "ccollections\ndefaultdict\n"}) {
        CAPTURE(g);
        CHECK(error_of(p2(g)).find("refused global") != std::string::npos);
    }
    CHECK(error_of(x("{80}{04}{8c}{02}os{8c}{06}system{93}.")).find("refused global 'os.system'") !=
          std::string::npos);  // STACK_GLOBAL
    CHECK(error_of(p2("ctorch\nFloatStorage\nK{01}{85}R")).find("refused REDUCE of torch.FloatStorage") != std::string::npos);
    CHECK(error_of(p2("U{01}aK{01}{85}R")).find("refused REDUCE of a value that is not a global") != std::string::npos);
    CHECK(error_of(p2("ccollections\nOrderedDict\nK{01}R")).find("not a tuple") != std::string::npos);
    CHECK(error_of(p2("ccollections\nOrderedDict\nK{01}{85}R")).find("with arguments") != std::string::npos);
}

TEST_CASE("pickle: refused opcodes are named") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"(iposix\nsystem\n", "INST (0x69)"}, {"(cposix\nsystem\no", "refused global"}, {"(o", "OBJ (0x6f)"},
        {"){81}", "NEWOBJ (0x81)"},            {"{92}", "NEWOBJ_EX"},                {"P1\n", "PERSID (0x50)"},
        {"{82}{01}", "EXT1"},                  {"I1\n", "INT (0x49)"},              {"{ff}", "0xff (unknown)"},
        {"{8f}", "EMPTY_SET"},                 {"B{01}{00}{00}{00}a", "BINBYTES"}};
    for (const auto& c : cases) {
        CAPTURE(c.second);
        CHECK(error_of(p2(c.first)).find(c.second) != std::string::npos);
    }
}

TEST_CASE("pickle: storages and tensors") {
    // ('storage', torch.HalfStorage, '0', 'cpu', 6) → BINPERSID
    const std::string storage = "(U{07}storagectorch\nHalfStorage\nU{01}" "0U{03}" "cpuK{06}tQ";
    const Value s = load(p2(storage));
    REQUIRE(s->kind == K::storage);
    CHECK(s->storage.dtype == "float16");
    CHECK(s->storage.item_size == 2);
    CHECK(s->storage.numel == 6);
    // _rebuild_tensor_v2(storage, 1, (2, 2), (1, 2), False, OrderedDict())
    const std::string tensor = "ctorch._utils\n_rebuild_tensor_v2\n(" + storage +
                               "K{01}K{02}K{02}{86}K{01}K{02}{86}{89}" "ccollections\nOrderedDict\n)Rt R";
    std::string t_body = tensor;
    t_body.erase(t_body.find(' '), 1);
    const Value t = load(p2(t_body));
    REQUIRE(t->kind == K::tensor);
    CHECK(t->tensor.offset == 1);
    CHECK(t->tensor.shape == std::vector<std::uint64_t>{2, 2});
    CHECK(t->tensor.stride == std::vector<std::uint64_t>{1, 2});
    // _rebuild_parameter(tensor, True, OrderedDict()) is the tensor
    CHECK(load(p2("ctorch._utils\n_rebuild_parameter\n(" + t_body + "{88}" "ccollections\nOrderedDict\n)RtR"))->kind == K::tensor);
    CHECK(error_of(p2("(U{07}storageU{01}xU{01}" "0U{03}" "cpuK{06}tQ")).find("not a torch storage") != std::string::npos);
    CHECK(error_of(p2("U{01}xQ")).find("refused persistent id") != std::string::npos);
    // BUILD: a dict's attributes are dropped; anything else is refused
    CHECK(load(p2("}}b"))->kind == K::dict);
    CHECK(error_of(p2(t_body + "}b")).find("refused BUILD") != std::string::npos);
}

TEST_CASE("pickle: cycles and deep nesting are refused, not followed") {
    CHECK(error_of(p2("}q{00}U{01}ah{00}s")).find("inside itself") != std::string::npos);
    CHECK(error_of(p2("]q{00}h{00}" "a")).find("inside itself") != std::string::npos);
    // a list placed in a tuple, then changed: the tuple would come to hold itself
    CHECK(error_of(p2("]q{00}{85}q{01}h{00}h{01}" "a")).find("changed after it was placed") != std::string::npos);
    std::string deep = ")";
    for (int k = 0; k < 200; ++k) deep += "{85}";  // TUPLE1 of TUPLE1 of ...
    CHECK(error_of(p2(deep)).find("nests deeper") != std::string::npos);
}

TEST_CASE("pickle: every prefix of a real data.pkl is an input error; every byte change is refused or harmless") {
    // The smallest checkpoint of the fixtures: a pickle torch 1.13 wrote.
    const std::string zip = slurp("data/models/torch_save/state_dict.pt");
    const std::size_t at = zip.find(x("{80}{02}ccollections"));
    REQUIRE(at != std::string::npos);
    const std::size_t end = zip.find(".PK", at);
    REQUIRE(end != std::string::npos);
    const std::string pkl = zip.substr(at, end + 1 - at);
    CHECK(load(pkl)->kind == K::dict);
    for (std::size_t n = 0; n < pkl.size(); ++n) CHECK_THROWS_AS(load(pkl.substr(0, n)), InputError);
    for (std::size_t i = 0; i < pkl.size(); ++i)
        for (unsigned char x : {0x01, 0x80, 0xff}) {
            std::string b = pkl;
            b[i] = char(b[i] ^ x);
            try {
                load(b);
            } catch (const InputError&) {
            }
        }
}

TEST_CASE("torch checkpoints: tensors read as numpy saved them; refusals") {
    using attn::io::torch_tensor;
    const std::string sd = slurp("data/models/torch_save/state_dict.pt");
    const std::string want = slurp("data/models/torch_save/expected.npz");
    for (const char* name : {"f32", "f16", "bf16", "base_t", "slice", "expand", "param", "meta.sub.w"}) {
        CAPTURE(name);
        const attn::Tensor got = torch_tensor(sd, name, "sd.pt"), ref = attn::io::npz_tensor(want, name, "e.npz");
        REQUIRE(got.shape() == ref.shape());
        for (std::size_t s = 0; s < got.slices(); ++s)
            for (std::size_t r = 0; r < got.rows(); ++r)
                CHECK(std::memcmp(got.slice_data(s) + r * got.row_stride(), ref.slice_data(s) + r * ref.row_stride(),
                                  got.cols() * sizeof(float)) == 0);
    }
    CHECK(attn::io::torch_list(sd, "sd.pt").size() == 11);
    CHECK(attn::io::is_torch_checkpoint(sd));
    CHECK_FALSE(attn::io::is_torch_checkpoint(slurp("data/models/small.npz")));
    // Every truncation of the archive is an input error.
    for (std::size_t n = 0; n < sd.size(); n += 7) CHECK_THROWS_AS(attn::io::torch_list(sd.substr(0, n), "sd.pt"), InputError);
}

TEST_CASE("torch checkpoints: every member in one folder, as torch.load requires") {
    const std::string four_floats(16, '\0');
    const std::string pkl = x("{80}{02}}q{00}U{01}w") + tensor_pickle(4, {2, 2}, {2, 1}) + "s.";
    CHECK(attn::io::torch_list(torch_zip(pkl, {{"0", four_floats}}), "one.pt").size() == 1);
    // A second folder with its own data.pkl: one of the two was read, silently (torch.load refuses).
    CHECK(error_of_list(torch_zip(pkl, {{"0", four_floats}}, {{"other/data.pkl", pkl}})) ==
          "bomb.pt: members in more than one folder ('archive/' and 'other/data.pkl'): not a torch.save checkpoint "
          "(torch.load refuses it)");
}

TEST_CASE("torch checkpoints: dicts shared through the memo are counted, not walked as a tree") {
    using attn::io::torch_list;
    const std::string four_floats(16, '\0');
    // Sharing as torch.save writes it still reads: one tensor under two names, one dict twice.
    const std::string t = tensor_pickle(4, {2, 2}, {2, 1});
    const auto shared_tensor = torch_list(torch_zip(x("{80}{02}}q{00}U{01}a") + t + x("q{01}sU{01}bh{01}s."), {{"0", four_floats}}), "s.pt");
    REQUIRE(shared_tensor.size() == 2);
    CHECK(shared_tensor[1].name == "b");
    const auto shared_dict = torch_list(
        torch_zip(x("{80}{02}}q{00}U{05}model}q{01}U{01}w") + t + "ss" + x("U{03}emah{01}s."),
                  {{"0", four_floats}}),
        "s.pt");
    REQUIRE(shared_dict.size() == 2);
    CHECK(shared_dict[0].name == "model.w");
    CHECK(shared_dict[1].name == "ema.w");
    // 2^11 names from 420 bytes: refused, naming the file, before any name is made (was: listed;
    // 40 levels took 18 s and 2.7 GB: tests/bad/torch_billion_laughs.case).
    CHECK(error_of_list(torch_zip(laughs(12), {{"0", four_floats}})).find("bomb.pt: data.pkl's dicts expand to 6142 entries") !=
          std::string::npos);
}

TEST_CASE("torch checkpoints: a view with more elements than its storage is read only up to 256 MiB") {
    using attn::io::torch_list;
    const std::string one_float(4, '\0');
    auto one = [&](const std::vector<std::uint32_t>& shape, const std::vector<std::uint32_t>& stride) {
        return torch_zip(x("{80}{02}}U{01}w") + tensor_pickle(1, shape, stride) + "s.", {{"0", one_float}});
    };
    // torch.tensor([0.]).expand(20000, 20000): 1.6 GB of float32 from 4 bytes; torch.load keeps
    // it a view, attn would copy it out (was: read, 1.6 GB).
    const std::string big = one({20000, 20000}, {0, 0});
    const auto listed = torch_list(big, "x.pt");
    REQUIRE(listed.size() == 1);
    CHECK(listed[0].shape.numel() == 400000000);  // still listed, as not readable
    REQUIRE(listed[0].note.find("a view of 400000000 elements over a storage of 1") != std::string::npos);
    CHECK(error_of_read(big).find("x.pt:w: a view of 400000000 elements") != std::string::npos);
    // Up to 256 MiB of float32 an expanded view is read (here only listed), as small ones are.
    CHECK(torch_list(one({8192, 8192}, {0, 0}), "x.pt")[0].note.empty());
    CHECK(torch_list(one({8193, 8192}, {0, 0}), "x.pt")[0].note.find("expanded") != std::string::npos);
    const attn::Tensor small = attn::io::torch_tensor(one({3, 5}, {0, 0}), "w", "x.pt");
    CHECK(small.shape().numel() == 15);
}

// A deflated data.pkl may declare 2 GiB from 2 MiB; the unpickler's bound on values refused it
// only after inflating it all (an audit: 4.4 s and 2 GB). Declared beyond 256 MiB, it is refused
// before a byte is inflated: here its "deflated" bytes are not even a deflate stream.
TEST_CASE("torch checkpoints: a data.pkl declared larger than 256 MiB is refused before it is inflated") {
    const std::string one_float(4, '\0');
    const std::string pkl = x("{80}{02}}U{01}w") + tensor_pickle(1, {1}, {1}) + "s.";
    const auto declaring = [&](std::uint64_t size) {
        // (at least size/1032 bytes: the most deflate can expand; the zip reader checks that first)
        std::string zip = torch_zip(pkl + std::string(size / 1000, 'x'), {{"0", one_float}});
        const auto at = [&](std::size_t k) { return std::size_t(std::uint8_t(zip[k])) | std::size_t(std::uint8_t(zip[k + 1])) << 8; };
        const std::size_t cd = at(zip.size() - 6) | at(zip.size() - 4) << 16;  // the first central entry: data.pkl's
        for (const auto& [method, usize] : {std::pair{std::size_t(8), std::size_t(22)}, {cd + 10, cd + 24}}) {
            zip.replace(method, 2, le(8, 2));  // deflated
            zip.replace(usize, 4, le(size, 4));
        }
        return zip;
    };
    CHECK(error_of_list(declaring(std::uint64_t(300) << 20)) ==
          "bomb.pt: data.pkl is 314572800 bytes: more than a state_dict's pickle takes (256 MiB): refused");
    // At 256 MiB it is inflated, and the bytes are found not to be a deflate stream.
    const std::string at_bound = error_of_list(declaring(std::uint64_t(256) << 20));
    CHECK(at_bound.find("more than a state_dict") == std::string::npos);
    CHECK(!at_bound.empty());
}

TEST_CASE("torch checkpoints: entries in place are row-major views of stored storages; the rest are left to copy") {
    // views/: tiny bert's weights as views of every kind (generate.py --views).
    const std::string bin = slurp("data/models/torch_save/views/pytorch_model.bin");
    std::size_t in_place = 0;
    for (const attn::io::TorchTensorBytes& e : attn::io::torch_entries(bin, "v.bin")) {
        const std::string& name = e.info.name;
        CAPTURE(name);
        REQUIRE(e.info.note.empty());
        // The transpose (strides (1, 32)) and the stride-2 vectors are copies; the rest lie in the file.
        const bool copied = name.ends_with("key.weight") || name.ends_with("LayerNorm.weight");
        CHECK(e.data.empty() == copied);
        if (copied) continue;
        ++in_place;
        // Inside the archive, and holding what the copying reader reads, row by row.
        REQUIRE(e.data.data() >= bin.data());
        REQUIRE(e.data.data() + e.data.size() <= bin.data() + bin.size());
        const attn::Tensor want = attn::io::torch_tensor(bin, name, "v.bin", attn::io::Finite::any);  // the pooler: NaN
        const std::size_t cols = want.cols(), rows = want.shape().numel() / cols;
        CHECK(e.row_stride == (name.ends_with("query.weight") ? 35 : cols));
        CHECK(e.data.size() == ((rows - 1) * e.row_stride + cols) * sizeof(float));
        for (std::size_t r = 0; r < rows; ++r)  // bits: NaN included
            CHECK(std::memcmp(e.data.data() + r * e.row_stride * sizeof(float), want.data() + r * want.row_stride(),
                              cols * sizeof(float)) == 0);
    }
    CHECK(in_place == 38 - 2 - 5);  // 38 tensors; copied: 2 key.weight, 5 LayerNorm.weight (2 a layer, 1 of the embeddings)
    // state_dict.pt: float16 and bfloat16 lie in place; the transpose, the strided slice and the
    // expanded view do not; int64 is unreadable.
    for (const attn::io::TorchTensorBytes& e : attn::io::torch_entries(slurp("data/models/torch_save/state_dict.pt"), "sd.pt")) {
        CAPTURE(e.info.name);
        const bool placed = e.info.name == "f32" || e.info.name == "f16" || e.info.name == "bf16" || e.info.name == "base" ||
                            e.info.name == "param" || e.info.name == "meta.sub.w";
        CHECK(!e.data.empty() == placed);
    }
    // A storage whose bytes no longer match the archive's CRC: refused, as reading it is.
    const std::string floats("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10", 16);
    std::string zip = torch_zip(x("{80}{02}}q{00}U{01}w") + tensor_pickle(4, {2, 2}, {2, 1}) + "s.", {{"0", floats}});
    REQUIRE(attn::io::torch_entries(zip, "c.pt").size() == 1);
    zip[zip.find(floats) + 3] ^= 1;
    CHECK_THROWS_WITH_AS(attn::io::torch_entries(zip, "c.pt"), "c.pt:w: CRC mismatch: the archive is damaged", InputError);
    // A model's weights are a state_dict: a saved list ([1]) or an empty dict is named as such
    // (was: the model's "no tensor 'embed_tokens.weight'").
    CHECK_THROWS_WITH_AS(attn::io::torch_entries(torch_zip(p2("]K{01}a"), {}), "l.bin"),
                         "l.bin: data.pkl holds a list, not a state_dict (a dict of tensors)", InputError);
    CHECK_THROWS_WITH_AS(attn::io::torch_entries(torch_zip(p2("}"), {}), "e.bin"), "e.bin: the state_dict is empty (no tensor)",
                         InputError);
}

TEST_CASE("legacy torch.save files: a storage's element count is an int64, shown signed") {
    // magic number, protocol version 1001, system info, {'w': a (2, 2) view of storage '0'}, the
    // key list ['0'], then the storage: its count (here -5: damaged) and its bytes
    const std::string magic = x("{80}{02}{8a}{0a}{6c}{fc}{9c}{46}{f9}{20}{6a}{a8}{50}{19}{2e}");
    const std::string head = magic + p2("M{e9}{03}") + p2("}") + x("{80}{02}}q{00}U{01}w") + tensor_pickle(4, {2, 2}, {2, 1}) +
                             "s." + p2("]U{01}0a");
    const std::string floats(16, '\0');
    REQUIRE(attn::io::torch_list(head + le(4, 8) + floats, "l.pt").size() == 1);
    CHECK_THROWS_WITH_AS(attn::io::torch_list(head + le(std::uint64_t(-5), 8) + floats, "l.pt"),
                         "l.pt: storage '0' holds -5 elements, its tensors' pickle says 4", InputError);
}
