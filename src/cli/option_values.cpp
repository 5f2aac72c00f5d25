#include "cli/option_values.hpp"

#include <charconv>
#include <system_error>

#include "attn/error.hpp"
#include "runtime/utf8.hpp"

namespace attn::cli {

bool integer_syntax(std::string_view text, bool negative_allowed) {
    const std::size_t start = negative_allowed && !text.empty() && text[0] == '-' ? 1 : 0;
    return text.size() > start && text.find_first_not_of("0123456789", start) == std::string_view::npos;
}

std::optional<long long> decimal_integer(std::string_view text, bool negative_allowed) {
    if (!integer_syntax(text, negative_allowed)) return std::nullopt;
    long long v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return v;
}

long long parse_integer(const std::string& text, const std::string& what, long long min, long long max) {
    const std::string invalid = "invalid " + what + " '" + text + "': ";
    if (text.size() > 1 && text[0] == '+' && integer_syntax(std::string_view(text).substr(1), false))
        throw UsageError(invalid + "expected an integer without '+'");
    const std::string_view unsigned_part = std::string_view(text).substr(text.starts_with('-') ? 1 : 0);
    if (unsigned_part.starts_with("0x") || unsigned_part.starts_with("0X"))
        throw UsageError(invalid + "expected a decimal integer");
    const std::optional<long long> v = decimal_integer(text, min < 0);
    if (!v || *v < min || *v > max)
        throw UsageError(invalid + "expected an integer from " + std::to_string(min) + " to " + std::to_string(max));
    return *v;
}

std::optional<long long> integer_option(const cxxopts::ParseResult& r, const std::string& name, long long min,
                                        long long max) {
    if (!r.count(name)) return std::nullopt;
    return parse_integer(r[name].as<std::string>(), (name.size() == 1 ? "-" : "--") + name, min, max);
}

long long integer_option(const cxxopts::ParseResult& r, const std::string& name, long long min, long long max,
                         long long fallback) {
    return integer_option(r, name, min, max).value_or(fallback);
}

std::uint64_t parse_seed(const std::string& text) {
    const auto bad = [&] { return UsageError("invalid --seed '" + text + "': expected an integer in [-2^63, 2^64)"); };
    if (!integer_syntax(text, true)) throw bad();
    const char* first = text.data();
    const char* last = first + text.size();
    if (text[0] == '-') {  // wraps mod 2^64, as torch.manual_seed(-1) does
        long long v = 0;
        const auto [end, ec] = std::from_chars(first, last, v);
        if (ec != std::errc() || end != last) throw bad();
        return std::uint64_t(v);
    }
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || end != last) throw bad();
    return v;
}

bool is_standard_stream(const std::string& path) { return path == "-"; }

std::string output_path(const std::string& path) { return is_standard_stream(path) ? "" : path; }

std::string svg_path(const std::string& file, bool stdout_taken, const std::string& other, const std::string& remedy) {
    if (file.empty()) throw UsageError("--svg needs a file name");
    if (is_standard_stream(file) && stdout_taken)
        throw UsageError("--svg - would mix the SVG with " + other + " on standard output: " + remedy);
    return output_path(file);
}

const std::string& text_option(const std::string& text, const char* option) {
    if (text.size() > (std::size_t(1) << 24))
        throw UsageError(std::string("--") + option + ": text longer than 16 MiB is not supported");
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = static_cast<unsigned char>(text[i]) < 0x80 ? 1 : io::utf8_length(text, i);
        if (n == 0) throw UsageError(std::string("--") + option + ": invalid UTF-8 at byte " + std::to_string(i));
        i += n;
    }
    return text;
}

const std::string& html_path(const std::string& file) {
    if (file.empty() || is_standard_stream(file)) throw UsageError("--html needs a file name");
    return file;
}

void check_heatmap_output(bool heatmap, bool show_given, bool format_given, const io::OutputOptions& out) {
    if (heatmap && !show_given && format_given)
        throw UsageError("--heatmap alone prints no matrices, so --format has nothing to format: add --show");
    if (heatmap && !show_given && !out.path.empty())
        throw UsageError("--heatmap alone prints no matrices, so -o has nothing to write: add --show");
    if (heatmap && show_given && out.path.empty() && out.format != io::Format::pretty)
        throw UsageError("--heatmap draws on standard output: combine it with --format pretty, or send the "
                         "matrices elsewhere with -o");
}

void require_text_format(io::Format format, const std::string& command) {
    if (format == io::Format::npy || format == io::Format::npz)
        throw UsageError("attn " + command + " prints text: --format pretty, csv, tsv or json, to standard output "
                         "or one file (-o FILE)");
}

}  // namespace attn::cli
