// The JSON reader: a recursive-descent parser over the bytes, with an explicit depth limit.
#include "read/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <system_error>

#include "attn/error.hpp"
#include "runtime/utf8.hpp"

namespace attn::json {

const char* kind_name(Kind k) {
    switch (k) {
        case Kind::null: return "null";
        case Kind::boolean: return "a boolean";
        case Kind::number: return "a number";
        case Kind::string: return "a string";
        case Kind::array: return "an array";
        case Kind::object: return "an object";
    }
    return "?";
}

Value Value::boolean(bool b) {
    Value v;
    v.kind_ = Kind::boolean;
    v.bool_ = b;
    return v;
}
Value Value::number(double d, std::string_view literal) {
    Value v;
    v.kind_ = Kind::number;
    v.number_ = d;
    v.string_ = literal;
    return v;
}
Value Value::string(std::string s) {
    Value v;
    v.kind_ = Kind::string;
    v.string_ = std::move(s);
    return v;
}
Value Value::array(std::vector<Value> items) {
    Value v;
    v.kind_ = Kind::array;
    v.items_ = std::move(items);
    return v;
}
Value Value::object(std::vector<std::string> keys, std::vector<Value> values) {
    Value v;
    v.kind_ = Kind::object;
    v.keys_ = std::move(keys);
    v.items_ = std::move(values);
    v.items_.resize(v.keys_.size());
    return v;
}

void Value::expect(Kind k) const {
    if (kind_ != k)
        throw InputError(std::string("json: expected ") + kind_name(k) + ", found " + kind_name(kind_));
}

bool Value::as_bool() const { expect(Kind::boolean); return bool_; }
double Value::as_number() const { expect(Kind::number); return number_; }
std::int64_t Value::as_int() const {
    expect(Kind::number);
    const auto text = [&] {  // as written (a number made in code has no literal)
        char made[32];
        std::snprintf(made, sizeof made, "%g", number_);
        return string_.empty() ? std::string(made) : string_;
    };
    if (string_.find_first_of(".eE") != std::string::npos || number_ != std::floor(number_))
        throw InputError("json: expected an integer, found " + text());
    constexpr double limit = 9007199254740992.0;  // 2^53
    if (!(std::fabs(number_) <= limit))
        throw InputError("json: " + text() + " is out of range: expected an integer from -2^53 to 2^53");
    return static_cast<std::int64_t>(number_);
}
const std::string& Value::as_string() const { expect(Kind::string); return string_; }
const std::vector<Value>& Value::as_array() const { expect(Kind::array); return items_; }
const std::vector<std::string>& Value::keys() const { expect(Kind::object); return keys_; }
const std::vector<Value>& Value::values() const { expect(Kind::object); return items_; }

const Value* Value::find(std::string_view key) const {
    expect(Kind::object);
    for (std::size_t i = keys_.size(); i-- > 0;)
        if (keys_[i] == key) return &items_[i];
    return nullptr;
}

const Value& Value::at(std::string_view key) const {
    const Value* v = find(key);
    if (!v) throw InputError("json: missing key \"" + std::string(key) + "\"");
    return *v;
}

const Value& Value::at(std::size_t i) const {
    expect(Kind::array);
    if (i >= items_.size())
        throw InputError("json: index " + std::to_string(i) + " is outside an array of " +
                         std::to_string(items_.size()));
    return items_[i];
}

std::size_t Value::size() const {
    if (kind_ != Kind::array && kind_ != Kind::object)
        throw InputError(std::string("json: expected an array or an object, found ") + kind_name(kind_));
    return items_.size();
}

namespace {
// Wraps a typed accessor's error with the member's name.
template <class F>
auto member(const Value& obj, std::string_view key, F get) -> decltype(get(obj)) {
    try {
        return get(*obj.find(key));
    } catch (const InputError& e) {
        throw InputError(std::string(e.what()) + " for key \"" + std::string(key) + "\"");
    }
}
}  // namespace

std::string Value::string_or(std::string_view key, std::string fallback) const {
    const Value* v = find(key);
    if (!v || v->is_null()) return fallback;
    return member(*this, key, [](const Value& x) { return x.as_string(); });
}
bool Value::bool_or(std::string_view key, bool fallback) const {
    const Value* v = find(key);
    if (!v || v->is_null()) return fallback;
    return member(*this, key, [](const Value& x) { return x.as_bool(); });
}
double Value::number_or(std::string_view key, double fallback) const {
    const Value* v = find(key);
    if (!v || v->is_null()) return fallback;
    return member(*this, key, [](const Value& x) { return x.as_number(); });
}
std::int64_t Value::int_or(std::string_view key, std::int64_t fallback) const {
    const Value* v = find(key);
    if (!v || v->is_null()) return fallback;
    return member(*this, key, [](const Value& x) { return x.as_int(); });
}

namespace {

class Parser {
public:
    Parser(std::string_view text, std::size_t max_depth) : s_(text), max_depth_(max_depth) {}

    Value document() {
        skip_space();
        Value v = value(0);
        skip_space();
        if (p_ != s_.size()) fail("unexpected text after the document");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw InputError("json: " + what + " at byte " + std::to_string(p_));
    }
    bool at_end() const { return p_ >= s_.size(); }
    char peek() const { return at_end() ? '\0' : s_[p_]; }

    void skip_space() {
        while (!at_end() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n' || s_[p_] == '\r')) ++p_;
    }

    void literal(std::string_view word) {
        if (s_.substr(p_, word.size()) != word) fail("invalid literal");
        p_ += word.size();
    }

    Value value(std::size_t depth) {
        if (at_end()) fail("unexpected end of the document");
        switch (s_[p_]) {
            case '{': return object(depth + 1);
            case '[': return array(depth + 1);
            case '"': return Value::string(string());
            case 't': literal("true"); return Value::boolean(true);
            case 'f': literal("false"); return Value::boolean(false);
            case 'n': literal("null"); return Value();
            default:
                if (s_[p_] == '-' || (s_[p_] >= '0' && s_[p_] <= '9')) return number();
                fail(std::string("unexpected character '") + printable(s_[p_]) + "'");
        }
    }

    static std::string printable(char c) {
        unsigned char u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7f) return std::string(1, c);
        static const char hex[] = "0123456789abcdef";
        return std::string("\\x") + hex[u >> 4] + hex[u & 15];
    }

    void enter(std::size_t depth) {
        if (depth > max_depth_) fail("nesting deeper than " + std::to_string(max_depth_) + " levels");
    }

    Value array(std::size_t depth) {
        enter(depth);
        ++p_;  // [
        std::vector<Value> items;
        skip_space();
        if (peek() == ']') { ++p_; return Value::array(std::move(items)); }
        for (;;) {
            skip_space();
            items.push_back(value(depth));
            skip_space();
            if (peek() == ',') { ++p_; continue; }
            if (peek() == ']') { ++p_; return Value::array(std::move(items)); }
            fail(at_end() ? "unterminated array" : "expected ',' or ']' in an array");
        }
    }

    Value object(std::size_t depth) {
        enter(depth);
        ++p_;  // {
        std::vector<std::string> keys;
        std::vector<Value> values;
        skip_space();
        if (peek() == '}') { ++p_; return Value::object(std::move(keys), std::move(values)); }
        for (;;) {
            skip_space();
            if (peek() != '"') fail(at_end() ? "unterminated object" : "expected a string key in an object");
            keys.push_back(string());
            skip_space();
            if (peek() != ':') fail("expected ':' after an object key");
            ++p_;
            skip_space();
            values.push_back(value(depth));
            skip_space();
            if (peek() == ',') { ++p_; continue; }
            if (peek() == '}') { ++p_; return Value::object(std::move(keys), std::move(values)); }
            fail(at_end() ? "unterminated object" : "expected ',' or '}' in an object");
        }
    }

    Value number() {
        const std::size_t start = p_;
        auto digits = [&] {
            std::size_t n = 0;
            while (!at_end() && s_[p_] >= '0' && s_[p_] <= '9') ++p_, ++n;
            return n;
        };
        if (peek() == '-') ++p_;
        if (peek() == '0') ++p_;
        else if (digits() == 0) fail("invalid number");
        if (peek() == '.') {
            ++p_;
            if (digits() == 0) fail("invalid number: no digits after '.'");
        }
        if (peek() == 'e' || peek() == 'E') {
            ++p_;
            if (peek() == '+' || peek() == '-') ++p_;
            if (digits() == 0) fail("invalid number: no digits in the exponent");
        }
        double d = 0;
        auto r = std::from_chars(s_.data() + start, s_.data() + p_, d);
        if (r.ec == std::errc::result_out_of_range) {
            // Underflow reads as zero (as JavaScript's), overflow is refused.
            const std::string_view t = s_.substr(start, p_ - start);
            const auto e = t.find_first_of("eE");
            if (e != std::string_view::npos && t.size() > e + 1 && t[e + 1] == '-')
                return Value::number(t[0] == '-' ? -0.0 : 0.0, t);
            p_ = start;
            fail("number out of range");
        }
        if (r.ec != std::errc() || r.ptr != s_.data() + p_) { p_ = start; fail("invalid number"); }
        return Value::number(d, s_.substr(start, p_ - start));
    }

    unsigned hex4() {
        if (p_ + 4 > s_.size()) fail("truncated \\u escape");
        unsigned v = 0;
        for (int i = 0; i < 4; ++i) {
            char c = s_[p_++];
            v <<= 4;
            if (c >= '0' && c <= '9') v |= unsigned(c - '0');
            else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
            else { --p_; fail("invalid hex digit in a \\u escape"); }
        }
        return v;
    }

    // Copies one UTF-8 sequence starting at p_ after checking it is well formed (no
    // overlong forms, no surrogates, at most U+10FFFF).
    void utf8(std::string& out) {
        const unsigned char c = static_cast<unsigned char>(s_[p_]);
        std::size_t n;
        unsigned cp, min;
        if (c >= 0xC2 && c <= 0xDF) n = 1, cp = c & 0x1F, min = 0x80;
        else if (c >= 0xE0 && c <= 0xEF) n = 2, cp = c & 0x0F, min = 0x800;
        else if (c >= 0xF0 && c <= 0xF4) n = 3, cp = c & 0x07, min = 0x10000;
        else fail("invalid UTF-8 in a string");
        if (p_ + n >= s_.size()) fail("invalid UTF-8 in a string");
        for (std::size_t i = 1; i <= n; ++i) {
            const unsigned char d = static_cast<unsigned char>(s_[p_ + i]);
            if ((d & 0xC0) != 0x80) fail("invalid UTF-8 in a string");
            cp = (cp << 6) | (d & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) fail("invalid UTF-8 in a string");
        out.append(s_.data() + p_, n + 1);
        p_ += n + 1;
    }

    std::string string() {
        const std::size_t open = p_;
        ++p_;  // "
        std::string out;
        for (;;) {
            if (at_end()) { p_ = open; fail("unterminated string"); }
            const char c = s_[p_];
            if (c == '"') { ++p_; return out; }
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
            if (static_cast<unsigned char>(c) >= 0x80) { utf8(out); continue; }
            if (c != '\\') { out += c; ++p_; continue; }
            ++p_;
            if (at_end()) { p_ = open; fail("unterminated string"); }
            const char e = s_[p_++];
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    const std::size_t esc = p_ - 2;
                    unsigned cp = hex4();
                    if (cp >= 0xDC00 && cp <= 0xDFFF) { p_ = esc; fail("unpaired low surrogate \\u escape"); }
                    if (cp >= 0xD800 && cp <= 0xDBFF) {
                        if (s_.substr(p_, 2) != "\\u") { p_ = esc; fail("unpaired high surrogate \\u escape"); }
                        p_ += 2;
                        const unsigned lo = hex4();
                        if (lo < 0xDC00 || lo > 0xDFFF) { p_ = esc; fail("unpaired high surrogate \\u escape"); }
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    }
                    io::append_utf8(out, cp);
                    break;
                }
                default: p_ -= 2; fail("invalid escape in a string");
            }
        }
    }

    std::string_view s_;
    std::size_t p_ = 0;
    std::size_t max_depth_;
};

}  // namespace

Value parse_json(std::string_view text, std::size_t max_depth) { return Parser(text, max_depth).document(); }

}  // namespace attn::json
