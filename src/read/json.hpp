// A small JSON reader (RFC 8259): a document tree whose objects keep their keys in file
// order, for config.json and tokenizer.json. Strings are UTF-8; \u escapes, surrogate pairs
// included, become UTF-8; an unpaired surrogate or invalid UTF-8 in the text is an error.
// Every error is an attn::InputError; parse errors name the byte offset.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attn::json {

enum class Kind { null, boolean, number, string, array, object };

// "null", "a boolean", "a number", "a string", "an array", "an object" (for messages).
const char* kind_name(Kind k);

class Value {
public:
    Value() = default;  // null
    static Value boolean(bool b);
    static Value number(double d, std::string_view literal = {});  // literal: as written, for messages
    static Value string(std::string s);
    static Value array(std::vector<Value> items);
    static Value object(std::vector<std::string> keys, std::vector<Value> values);

    Kind kind() const { return kind_; }
    bool is_null() const { return kind_ == Kind::null; }
    bool is_bool() const { return kind_ == Kind::boolean; }
    bool is_number() const { return kind_ == Kind::number; }
    bool is_string() const { return kind_ == Kind::string; }
    bool is_array() const { return kind_ == Kind::array; }
    bool is_object() const { return kind_ == Kind::object; }

    // Typed access: each throws InputError ("expected a string, found a number") when the
    // value is of another kind. as_int also refuses a number written as no integer literal
    // (16.0, 1.6e1: transformers' int keys fail on a float) or outside [-2^53, 2^53].
    bool as_bool() const;
    double as_number() const;
    std::int64_t as_int() const;
    const std::string& as_string() const;
    const std::vector<Value>& as_array() const;  // an array's items

    // Objects: the keys in file order and the values in the same order.
    const std::vector<std::string>& keys() const;    // throws unless an object
    const std::vector<Value>& values() const;        // throws unless an object
    // The value of `key` (the last one if the key is repeated, as JavaScript's JSON.parse
    // keeps), or nullptr when absent; throws unless an object.
    const Value* find(std::string_view key) const;
    bool contains(std::string_view key) const { return find(key) != nullptr; }
    // The value of `key`; throws InputError `missing key "key"` when absent.
    const Value& at(std::string_view key) const;
    // An array's item i; throws when out of range.
    const Value& at(std::size_t i) const;
    // The number of items of an array or members of an object; throws for other kinds.
    std::size_t size() const;

    // Convenience for optional members: the member's value when present and not null,
    // else `fallback`; a present member of the wrong kind throws.
    std::string string_or(std::string_view key, std::string fallback) const;
    bool bool_or(std::string_view key, bool fallback) const;
    double number_or(std::string_view key, double fallback) const;
    std::int64_t int_or(std::string_view key, std::int64_t fallback) const;

private:
    void expect(Kind k) const;

    Kind kind_ = Kind::null;
    bool bool_ = false;
    double number_ = 0;
    std::string string_;             // a string's text; a number's literal as written
    std::vector<Value> items_;       // array items, or object values
    std::vector<std::string> keys_;  // object keys, in order
};

// Parses one JSON document (surrounding white space allowed, nothing else after it).
// Nesting deeper than max_depth arrays/objects is refused rather than recursed into.
Value parse_json(std::string_view text, std::size_t max_depth = 256);

}  // namespace attn::json
