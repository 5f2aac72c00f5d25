// Internal to src/tokenize: the generated Unicode tables (unicode_data.cpp, written by
// data/unicode/make_tables.py from the Unicode Character Database). Every table is sorted by
// code point for binary search; unicode.cpp is their only reader.
#pragma once
#include <cstddef>
#include <cstdint>

namespace attn::unicode::tables {

struct CategoryRun { char32_t first; std::uint8_t category; };  // up to the next run's first
struct CccRun { char32_t first; std::uint8_t ccc; };
struct Decomposition { char32_t cp; std::uint32_t offset; std::uint8_t length; std::uint8_t compat; };
struct Composition { char32_t first, second, composite; };
struct CaseMapping { char32_t cp; std::uint32_t offset; std::uint8_t length; };
struct Range { char32_t first, last; };

extern const char* const unicode_version;
extern const CategoryRun category_runs[];
extern const std::size_t category_run_count;
extern const CccRun ccc_runs[];
extern const std::size_t ccc_run_count;
extern const char32_t decomposition_pool[];
extern const Decomposition decompositions[];
extern const std::size_t decomposition_count;
extern const Composition compositions[];
extern const std::size_t composition_count;
extern const char32_t lowercase_pool[];
extern const CaseMapping lowercase[];
extern const std::size_t lowercase_count;
extern const Range white_space[];
extern const std::size_t white_space_count;
extern const Range cased[];
extern const std::size_t cased_count;
extern const Range case_ignorable[];
extern const std::size_t case_ignorable_count;
extern const Range alphabetic[];
extern const std::size_t alphabetic_count;
extern const Range join_control[];
extern const std::size_t join_control_count;

}  // namespace attn::unicode::tables
