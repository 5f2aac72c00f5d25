// The restricted unpickler (see pickle.hpp). The opcode semantics follow CPython's
// Lib/pickle.py (_Unpickler); what a callable "does" is modelled only for the globals below,
// so no byte of the input can make attn run anything.
#include "read/model/pickle.hpp"

#include <cstring>
#include <map>
#include <unordered_map>

#include "attn/error.hpp"
#include "read/header_cursor.hpp"

namespace attn::io::pickle {

namespace {

constexpr std::size_t max_depth = 64;  // state_dicts nest a few levels; a deep tree is an attack

constexpr std::string_view ordered_dict = "collections.OrderedDict", rebuild_tensor = "torch._utils._rebuild_tensor_v2",
                           rebuild_parameter = "torch._utils._rebuild_parameter";

// Names of the opcodes this reader refuses, for messages.
const char* opcode_name(unsigned char op) {
    switch (op) {
        case 'i': return "INST";
        case 'o': return "OBJ";
        case 0x81: return "NEWOBJ";
        case 0x92: return "NEWOBJ_EX";
        case 'P': return "PERSID";
        case 0x82: return "EXT1";
        case 0x83: return "EXT2";
        case 0x84: return "EXT4";
        case 'I': return "INT";
        case 'L': return "LONG";
        case 0x8b: return "LONG4";
        case 'F': return "FLOAT";
        case 'S': return "STRING";
        case 'V': return "UNICODE";
        case 'B': return "BINBYTES";
        case 'C': return "SHORT_BINBYTES";
        case 0x8e: return "BINBYTES8";
        case 0x96: return "BYTEARRAY8";
        case 0x97: return "NEXT_BUFFER";
        case 0x98: return "READONLY_BUFFER";
        case 0x8f: return "EMPTY_SET";
        case 0x90: return "ADDITEMS";
        case 0x91: return "FROZENSET";
        default: return nullptr;
    }
}

std::string hex(unsigned char c) {
    const char* d = "0123456789abcdef";
    return std::string("0x") + d[c >> 4] + d[c & 15];
}

Value new_node(Node::Kind k) {
    auto n = std::make_shared<Node>();
    n->kind = k;
    return n;
}

class Unpickler {
public:
    Unpickler(std::string_view b, const std::string& source) : b_(b), source_(source) {}

    std::size_t position() const { return at_; }  // after STOP, once run() returned

    Value run() {
        for (;;) {
            if (at_ >= b_.size()) fail("truncated pickle (no STOP opcode)");
            const std::size_t op_at = at_;
            const unsigned char op = static_cast<unsigned char>(b_[at_++]);
            op_at_ = op_at;
            if (op == '.') {  // STOP
                Value v = pop();
                if (!stack_.empty() || !marks_.empty()) fail("malformed pickle: values left on the stack at STOP");
                return v;
            }
            step(op);
        }
    }

private:
    [[noreturn]] void fail(const std::string& m) const {
        throw InputError(source_ + ": " + m + " (at byte " + std::to_string(op_at_) + ")");
    }

    std::string_view take(std::uint64_t n) {
        if (n > b_.size() - at_) fail("truncated pickle");
        const std::string_view s = b_.substr(at_, std::size_t(n));
        at_ += std::size_t(n);
        return s;
    }
    std::uint64_t le(std::size_t n) {
        const std::string_view s = take(n);
        std::uint64_t v = 0;
        for (std::size_t k = 0; k < n; ++k) v |= std::uint64_t(static_cast<unsigned char>(s[k])) << (8 * k);
        return v;
    }
    std::string line() {
        const std::size_t nl = b_.find('\n', at_);
        if (nl == std::string_view::npos) fail("truncated pickle");
        std::string s(b_.substr(at_, nl - at_));
        at_ = nl + 1;
        return s;
    }

    void push(Value v) { stack_.push_back(std::move(v)); }
    Value pop() {
        if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail("malformed pickle: pop from an empty stack");
        Value v = std::move(stack_.back());
        stack_.pop_back();
        return v;
    }
    Value& top() {
        if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail("malformed pickle: empty stack");
        return stack_.back();
    }
    std::vector<Value> pop_mark() {
        if (marks_.empty()) fail("malformed pickle: no MARK");
        std::vector<Value> items(stack_.begin() + std::ptrdiff_t(marks_.back()), stack_.end());
        stack_.resize(marks_.back());
        marks_.pop_back();
        return items;
    }

    Value container(Node::Kind k, std::vector<Value> items) {
        Value t = make(k);
        for (const Value& v : items) grow(*t, v);
        t->items = std::move(items);
        return t;
    }
    void grow(Node& parent, const Value& child) {
        if (child.get() == &parent) fail("malformed pickle: a container placed inside itself");
        child->placed = true;
        parent.depth = std::max(parent.depth, child->depth + 1);
        if (parent.depth > max_depth) fail("pickle nests deeper than " + std::to_string(max_depth) + " levels");
    }
    void mutable_check(const Node& n) {
        if (n.placed) fail("malformed pickle: a dict or list changed after it was placed in another value");
    }
    void set_items(Value& d, std::vector<Value> kv) {
        if (d->kind != Node::Kind::dict) fail("SETITEM(S) on a value that is not a dict");
        mutable_check(*d);
        for (const Value& v : kv) grow(*d, v);
        if (kv.size() % 2) fail("malformed pickle: SETITEMS with an odd number of values");
        for (std::size_t k = 0; k < kv.size(); k += 2) {
            // A key set twice keeps its first place and takes the last value, as in Python.
            if (kv[k]->kind == Node::Kind::text) {
                auto& index = text_keys_[d.get()];
                const auto [it, added] = index.emplace(kv[k]->text, d->entries.size());
                if (!added) {
                    d->entries[it->second].second = kv[k + 1];
                    continue;
                }
            }
            d->entries.emplace_back(kv[k], kv[k + 1]);
        }
    }

    // A value or memo entry takes a few hundred bytes for one byte of pickle ('N', '}', BINPUT):
    // bounded, so that 20 MB of 'N' cannot take 7.5 GB. A state_dict makes about 25 of both a
    // tensor (tiny/bert_bin: 893 for 37); the bound is 160,000 tensors' worth, about 1.6 GB.
    static constexpr std::size_t max_values = std::size_t(1) << 22;
    void count_value() {
        if (++values_ > max_values)
            fail("more than " + std::to_string(max_values) + " values and memo entries: refused (a state_dict makes "
                 "about 25 a tensor)");
    }
    Value make(Node::Kind k) {
        count_value();
        return new_node(k);
    }

    void memo_put(std::uint64_t i) {
        count_value();
        memo_[i] = top();
    }
    void memo_get(std::uint64_t i) {
        const auto it = memo_.find(i);
        if (it == memo_.end()) fail("malformed pickle: memo entry " + std::to_string(i) + " was never stored");
        push(it->second);
    }

    void global(std::string module, const std::string& name) {
        const std::string full = module + "." + name;
        StorageRef s;
        if (full != ordered_dict && full != rebuild_tensor && full != rebuild_parameter && !storage_type(full, &s))
            fail("refused global '" + detail::printable(full, 80) +
                 "': a torch.save state_dict of tensors needs only collections.OrderedDict, torch._utils._rebuild_tensor_v2, "
                 "torch._utils._rebuild_parameter and torch storage types (nothing is ever imported or run)");
        Value g = make(Node::Kind::global);
        g->text = full;
        push(g);
    }

    std::uint64_t as_count(const Value& v, const char* what) {
        if (v->kind != Node::Kind::integer || v->integer < 0) fail(std::string(what) + " is not a non-negative integer");
        return std::uint64_t(v->integer);
    }
    std::vector<std::uint64_t> as_counts(const Value& v, const char* what) {
        if (v->kind != Node::Kind::tuple) fail(std::string(what) + " is not a tuple");
        std::vector<std::uint64_t> out;
        for (const Value& x : v->items) out.push_back(as_count(x, what));
        return out;
    }

    // REDUCE: the call of one of the known callables, modelled.
    void reduce() {
        const Value args = pop(), f = pop();
        const std::string callee = f->kind == Node::Kind::global ? f->text : "a value that is not a global";
        if (args->kind != Node::Kind::tuple) fail("REDUCE of " + callee + " with arguments that are not a tuple");
        const std::vector<Value>& a = args->items;
        if (callee == ordered_dict) {
            if (!a.empty()) fail("REDUCE of collections.OrderedDict with arguments is not supported");
            push(make(Node::Kind::dict));
        } else if (callee == rebuild_tensor) {
            // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
            if (a.size() != 6 && a.size() != 7) fail("_rebuild_tensor_v2 takes 6 or 7 arguments, not " + std::to_string(a.size()));
            if (a[0]->kind != Node::Kind::storage) fail("_rebuild_tensor_v2's first argument is not a storage");
            Value t = make(Node::Kind::tensor);
            t->tensor.storage = a[0]->storage;
            t->tensor.offset = as_count(a[1], "the storage offset");
            t->tensor.shape = as_counts(a[2], "the size");
            t->tensor.stride = as_counts(a[3], "the stride");
            if (t->tensor.shape.size() != t->tensor.stride.size()) fail("_rebuild_tensor_v2: size and stride differ in length");
            push(t);
        } else if (callee == rebuild_parameter) {
            // (data, requires_grad, backward_hooks): an nn.Parameter is its tensor
            if (a.size() != 3 || a[0]->kind != Node::Kind::tensor) fail("_rebuild_parameter takes (tensor, requires_grad, hooks)");
            push(a[0]);
        } else {
            fail("refused REDUCE of " + detail::printable(callee, 80) + ": only OrderedDict, _rebuild_tensor_v2 and "
                 "_rebuild_parameter are modelled (nothing is ever called)");
        }
    }

    // BINPERSID: ('storage', storage type, key, location, numel), and in the legacy format a
    // sixth item, view_metadata, None unless storages were shared as views (torch < 0.4).
    void persistent(const Value& pid) {
        const auto& p = pid->items;
        if (pid->kind != Node::Kind::tuple || (p.size() != 5 && p.size() != 6) || p[0]->kind != Node::Kind::text ||
            p[0]->text != "storage")
            fail("refused persistent id: only ('storage', type, key, location, numel[, None]) is known");
        if (p.size() == 6 && p[5]->kind != Node::Kind::none)
            fail("refused persistent id: a storage view (view_metadata, torch < 0.4's shared storages) is not "
                 "supported");
        Value s = make(Node::Kind::storage);
        if (p[1]->kind != Node::Kind::global || !storage_type(p[1]->text, &s->storage))
            fail("persistent id: the storage type is not a torch storage global");
        if (p[2]->kind != Node::Kind::text) fail("persistent id: the storage key is not text");
        s->storage.key = p[2]->text;
        s->storage.numel = as_count(p[4], "the storage size");
        push(s);
    }

    void step(unsigned char op) {
        using K = Node::Kind;
        switch (op) {
            case 0x80: take(1); break;     // PROTO
            case 0x95: take(8); break;     // FRAME: a length hint, the bytes follow in line
            case '(': marks_.push_back(stack_.size()); break;  // MARK
            case '0': pop(); break;        // POP
            case '1': pop_mark(); break;   // POP_MARK
            case '2': push(top()); break;  // DUP
            case 'c': {                    // GLOBAL "module\nname\n"
                std::string module = line();
                global(module, line());
                break;
            }
            case 0x93: {  // STACK_GLOBAL
                const Value name = pop(), module = pop();
                if (name->kind != K::text || module->kind != K::text) fail("STACK_GLOBAL of values that are not text");
                global(module->text, name->text);
                break;
            }
            case 'q': memo_put(le(1)); break;  // BINPUT
            case 'r': memo_put(le(4)); break;  // LONG_BINPUT
            case 0x94: memo_put(memo_.size()); break;  // MEMOIZE
            case 'p': memo_put(number(line())); break;  // PUT
            case 'h': memo_get(le(1)); break;  // BINGET
            case 'j': memo_get(le(4)); break;  // LONG_BINGET
            case 'g': memo_get(number(line())); break;  // GET
            case 'N': push(make(K::none)); break;
            case 0x88: case 0x89: {  // NEWTRUE, NEWFALSE
                Value v = make(K::boolean);
                v->integer = op == 0x88;
                push(v);
                break;
            }
            case 'K': case 'M': case 'J': {  // BININT1, BININT2, BININT (signed 32-bit)
                Value v = make(K::integer);
                const std::uint64_t u = le(op == 'K' ? 1 : op == 'M' ? 2 : 4);
                v->integer = op == 'J' ? std::int64_t(std::int32_t(std::uint32_t(u))) : std::int64_t(u);
                push(v);
                break;
            }
            case 0x8a: {  // LONG1: n bytes of two's complement, little-endian
                const std::size_t n = std::size_t(le(1));
                if (n > 8) fail("LONG1 of " + std::to_string(n) + " bytes: integers beyond 64 bits are not supported");
                std::uint64_t u = n ? le(n) : 0;
                if (n && n < 8 && (u >> (8 * n - 1)) & 1) u |= ~std::uint64_t(0) << (8 * n);  // sign-extend
                Value v = make(K::integer);
                v->integer = std::int64_t(u);
                push(v);
                break;
            }
            case 'G': {  // BINFLOAT: big-endian double
                const std::string_view s = take(8);
                std::uint64_t u = 0;
                for (char c : s) u = u << 8 | static_cast<unsigned char>(c);
                Value v = make(K::real);
                std::memcpy(&v->real, &u, 8);
                push(v);
                break;
            }
            case 'X': case 0x8c: case 0x8d: case 'T': case 'U': {  // BINUNICODE(8), SHORT_BINUNICODE, (SHORT_)BINSTRING
                const std::uint64_t n = le(op == 0x8c || op == 'U' ? 1 : op == 0x8d ? 8 : 4);
                Value v = make(K::text);
                v->text = std::string(take(n));
                push(v);
                break;
            }
            case ')': push(make(K::tuple)); break;  // EMPTY_TUPLE
            case 't': push(container(K::tuple, pop_mark())); break;
            case 0x85: case 0x86: case 0x87: {  // TUPLE1..3
                std::vector<Value> items(std::size_t(op - 0x84));
                for (std::size_t k = items.size(); k-- > 0;) items[k] = pop();
                push(container(K::tuple, std::move(items)));
                break;
            }
            case ']': push(make(K::list)); break;  // EMPTY_LIST
            case 'l': push(container(K::list, pop_mark())); break;
            case 'a': case 'e': {  // APPEND, APPENDS
                std::vector<Value> items = op == 'a' ? std::vector<Value>{pop()} : pop_mark();
                Value& l = top();
                if (l->kind != K::list) fail("APPEND to a value that is not a list");
                mutable_check(*l);
                for (Value& v : items) grow(*l, v), l->items.push_back(std::move(v));
                break;
            }
            case '}': push(make(K::dict)); break;  // EMPTY_DICT
            case 'd': {                            // DICT
                Value d = make(K::dict);
                set_items(d, pop_mark());
                push(d);
                break;
            }
            case 's': {  // SETITEM
                Value v = pop(), k = pop();
                set_items(top(), {k, v});
                break;
            }
            case 'u': {  // SETITEMS
                std::vector<Value> kv = pop_mark();
                set_items(top(), std::move(kv));
                break;
            }
            case 'R': reduce(); break;
            case 'b': {  // BUILD: an OrderedDict's __dict__ (a state_dict's _metadata), dropped
                const Value state = pop();
                if (top()->kind != K::dict || (state->kind != K::dict && state->kind != K::none))
                    fail("refused BUILD: only a dict's attributes (a state_dict's _metadata) are known");
                break;
            }
            case 'Q': persistent(pop()); break;  // BINPERSID
            default: {
                const char* name = opcode_name(op);
                fail(std::string("refused pickle opcode ") + (name ? name : "") + (name ? " (" : "") + hex(op) +
                     (name ? ")" : " (unknown)") + ": not used by a torch.save state_dict");
            }
        }
    }

    std::uint64_t number(const std::string& s) {
        if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) fail("malformed memo index");
        return std::stoull(s);
    }

    std::string_view b_;
    const std::string& source_;
    std::size_t at_ = 0, op_at_ = 0;
    std::vector<Value> stack_;
    std::vector<std::size_t> marks_;
    std::unordered_map<std::uint64_t, Value> memo_;
    std::size_t values_ = 0;  // made, and memo entries stored (count_value)
    std::unordered_map<const Node*, std::unordered_map<std::string, std::size_t>> text_keys_;  // per dict: key → entry
};

}  // namespace

bool storage_type(std::string_view global, StorageRef* out) {
    static const std::map<std::string_view, std::pair<const char*, std::size_t>> types = {
        {"torch.FloatStorage", {"float32", 4}}, {"torch.HalfStorage", {"float16", 2}},  {"torch.BFloat16Storage", {"bfloat16", 2}},
        {"torch.DoubleStorage", {"float64", 8}}, {"torch.LongStorage", {"int64", 8}},   {"torch.IntStorage", {"int32", 4}},
        {"torch.ShortStorage", {"int16", 2}},    {"torch.CharStorage", {"int8", 1}},    {"torch.ByteStorage", {"uint8", 1}},
        {"torch.BoolStorage", {"bool", 1}},
        // listed (attn ls) and refused by name when read, as the integer types are
        {"torch.ComplexHalfStorage", {"complex32", 4}}, {"torch.ComplexFloatStorage", {"complex64", 8}},
        {"torch.ComplexDoubleStorage", {"complex128", 16}}};
    const auto it = types.find(global);
    if (it == types.end()) return false;
    out->dtype = it->second.first;
    out->item_size = it->second.second;
    return true;
}

Value unpickle(std::string_view bytes, const std::string& source, std::size_t* consumed) {
    Unpickler u(bytes, source);
    Value v = u.run();
    if (consumed) *consumed = u.position();
    return v;
}

}  // namespace attn::io::pickle
