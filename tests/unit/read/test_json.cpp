// The JSON reader: values, key order, escapes (surrogate pairs), UTF-8 checks, the depth
// limit, and errors with byte offsets. Expected values are written out by hand from RFC 8259.
#include <doctest/doctest.h>

#include <string>

#include "attn/error.hpp"
#include "read/json.hpp"

using attn::InputError;
using attn::json::parse_json;
using attn::json::Value;

namespace {
std::string error_of(const std::string& text) {
    try {
        parse_json(text);
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}
}  // namespace

TEST_CASE("json: scalars, arrays and objects with their key order") {
    const Value v = parse_json(R"( {"b": 1, "a": [true, false, null, -0.5e2, "x"], "c": {}} )");
    REQUIRE(v.is_object());
    CHECK(v.keys() == std::vector<std::string>{"b", "a", "c"});
    CHECK(v.at("b").as_int() == 1);
    const Value& a = v.at("a");
    REQUIRE(a.size() == 5);
    CHECK(a.at(0).as_bool() == true);
    CHECK(a.at(1).as_bool() == false);
    CHECK(a.at(2).is_null());
    CHECK(a.at(3).as_number() == -50.0);
    CHECK(a.at(4).as_string() == "x");
    CHECK(v.at("c").size() == 0);
    CHECK(v.find("z") == nullptr);
    CHECK(v.string_or("z", "dflt") == "dflt");
    CHECK(v.int_or("b", 7) == 1);
    CHECK(parse_json("[]").size() == 0);
    CHECK(parse_json("0").as_int() == 0);
    CHECK(parse_json("1e-400").as_number() == 0.0);
}

TEST_CASE("json: a repeated key gives its last value, as JSON.parse does") {
    const Value v = parse_json(R"({"k": 1, "k": 2})");
    CHECK(v.size() == 2);
    CHECK(v.at("k").as_int() == 2);
}

TEST_CASE("json: escapes and UTF-8") {
    CHECK(parse_json(R"("a\"\\\/\b\f\n\r\t")").as_string() == "a\"\\/\b\f\n\r\t");
    CHECK(parse_json(R"("\u00e9\u4E2D")").as_string() == "\xC3\xA9\xE4\xB8\xAD");         // é 中
    CHECK(parse_json(R"("\ud83d\ude00")").as_string() == "\xF0\x9F\x98\x80");             // U+1F600
    CHECK(parse_json("\"\xC4\xA0x\"").as_string() == "\xC4\xA0x");                        // Ġx as is
    CHECK(parse_json(R"("\u0000")").as_string() == std::string(1, '\0'));
}

TEST_CASE("json: errors name what is wrong and the byte offset") {
    CHECK(error_of("[1, 2") == "json: unterminated array at byte 5");
    CHECK(error_of("{\"a\" 1}") == "json: expected ':' after an object key at byte 5");
    CHECK(error_of("[1,]") == "json: unexpected character ']' at byte 3");
    CHECK(error_of("01") == "json: unexpected text after the document at byte 1");
    CHECK(error_of("\"abc") == "json: unterminated string at byte 0");
    CHECK(error_of(R"("\ud83d")") == "json: unpaired high surrogate \\u escape at byte 1");
    CHECK(error_of(R"("\ude00")") == "json: unpaired low surrogate \\u escape at byte 1");
    CHECK(error_of(R"("\x")") == "json: invalid escape in a string at byte 1");
    CHECK(error_of("\"\xC0\x80\"") == "json: invalid UTF-8 in a string at byte 1");        // overlong
    CHECK(error_of("\"\xED\xA0\x80\"") == "json: invalid UTF-8 in a string at byte 1");    // surrogate
    CHECK(error_of("\"a\nb\"") == "json: control character in a string at byte 2");
    CHECK(error_of("1e999") == "json: number out of range at byte 0");
    CHECK(error_of("-") == "json: invalid number at byte 1");
    CHECK(error_of("1.") == "json: invalid number: no digits after '.' at byte 2");
    CHECK(error_of("tru") == "json: invalid literal at byte 0");
    CHECK(error_of("") == "json: unexpected end of the document at byte 0");
}

TEST_CASE("json: the depth limit refuses deep nesting instead of recursing") {
    CHECK_NOTHROW(parse_json(std::string(10, '[') + std::string(10, ']'), 10));
    CHECK(error_of(std::string(100000, '[')) == "json: nesting deeper than 256 levels at byte 256");
}

TEST_CASE("json: as_int takes integer literals only, and names the literal as written") {
    CHECK(parse_json("-16").as_int() == -16);
    CHECK(parse_json("9007199254740992").as_int() == 9007199254740992);
    // a float literal of a whole number is no integer: transformers' int keys fail on it
    for (const char* literal : {"16.0", "1.6e1", "16E0"}) {
        INFO(literal);
        CHECK(parse_json(literal).as_number() == 16.0);
        CHECK_THROWS_WITH_AS(parse_json(literal).as_int(), ("json: expected an integer, found " + std::string(literal)).c_str(),
                             InputError);
    }
    CHECK_THROWS_WITH_AS(parse_json("1e-400").as_int(), "json: expected an integer, found 1e-400", InputError);
    // beyond 2^53: the literal, not its double (9223372036854775808.000000)
    CHECK_THROWS_WITH_AS(parse_json("9223372036854775807").as_int(),
                         "json: 9223372036854775807 is out of range: expected an integer from -2^53 to 2^53", InputError);
    CHECK_THROWS_WITH_AS(Value::number(2.5).as_int(), "json: expected an integer, found 2.5", InputError);
}

TEST_CASE("json: typed accessors throw with the kinds and the key") {
    const Value v = parse_json(R"({"n": 1.5, "s": "x"})");
    CHECK_THROWS_WITH_AS(v.at("s").as_int(), "json: expected a number, found a string", InputError);
    CHECK_THROWS_WITH_AS(v.at("n").as_int(), "json: expected an integer, found 1.5", InputError);
    CHECK_THROWS_WITH_AS(v.at("missing"), "json: missing key \"missing\"", InputError);
    CHECK_THROWS_WITH_AS(v.bool_or("s", false), "json: expected a boolean, found a string for key \"s\"", InputError);
    CHECK_THROWS_WITH_AS(v.at(0), "json: expected an array, found an object", InputError);
}
