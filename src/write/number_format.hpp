// Internal to src/write: how one number is written, and which notation a tensor prints in.
#pragma once
#include <limits>
#include <string>

#include "attn/tensor.hpp"

namespace attn::io::detail {

enum class Notation { fixed, scientific };

// The finite nonzero magnitudes seen so far, for the notation rule below.
struct MagnitudeRange {
    double min = std::numeric_limits<double>::infinity();
    double max = 0;
    void add(double v);
    // PyTorch's rule (torch/_tensor_str.py, _Formatter; NumPy's is the same with max >= 1e8):
    // scientific when max/min > 1e3, max > 1e8 or min < 1e-4; fixed when there is no finite
    // nonzero value.
    Notation notation() const;
};

// The notation of a whole tensor (every value it views).
Notation tensor_notation(const TensorView& t);

// "-1.1969" (%.*f), "2.0611e-09" (%.*e, at least two exponent digits): `decimals` after the
// point in both, as torch's precision. "inf", "-inf", "nan" for non-finite values.
std::string fixed(double v, int decimals);
std::string scientific(double v, int decimals);
std::string in_notation(double v, Notation n, int decimals);
// %.*g: `digits` significant digits (csv, tsv, json).
std::string significant(double v, int digits);
// The same text written at p; returns its end (no temporary string: the csv/tsv/json hot
// loop). The text takes at most significant_max_chars(digits) (%.Pg prints at most P digits,
// a sign, a point and "0.000" or "e-308": P + 8), and the bytes from p up to
// p + significant_max_chars(digits) + significant_scratch_chars must be writable: the
// fixed-size stores of the fast path may write scratch bytes after the end it returns (a row
// of numbers needs the scratch room once, after its last number). Digits up to 30 use exact
// integer arithmetic instead of std::to_chars (several times faster, same bytes); float
// values with up to 9 digits, 64-bit integers only.
constexpr std::size_t significant_max_chars(int digits) { return std::size_t(digits < 1 ? 1 : digits) + 12; }
constexpr std::size_t significant_scratch_chars = 40;
char* write_significant(char* p, double v, int digits);
void append_significant(std::string& out, double v, int digits);

}  // namespace attn::io::detail
