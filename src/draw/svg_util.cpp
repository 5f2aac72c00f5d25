// SVG building blocks (draw/svg_util.hpp) and xml_escape (attn/viz.hpp).
#include "draw/svg_util.hpp"

#include <cstdio>
#include <string>

#include "attn/viz.hpp"
#include "runtime/utf8.hpp"

namespace attn::viz {

namespace {

// Length of the well-formed UTF-8 sequence at s[i] that XML 1.0 allows (runtime/utf8.hpp's rule,
// and not U+FFFE or U+FFFF), or 0 when there is none.
std::size_t xml_char_length(const std::string& s, std::size_t i) {
    if (static_cast<unsigned char>(s[i]) < 0x80) return 1;
    const std::size_t n = io::utf8_length(s, i);
    const bool nonchar = n == 3 && s.compare(i, 2, "\xEF\xBF") == 0 && (s[i + 2] == '\xBE' || s[i + 2] == '\xBF');
    return nonchar ? 0 : n;
}

}  // namespace

// Invalid UTF-8 and characters XML forbids become U+FFFD, so the file always parses.
std::string xml_escape(const std::string& text) {
    std::string valid;
    const std::string in = detail::printable(text);
    for (std::size_t i = 0; i < in.size();) {
        const std::size_t n = xml_char_length(in, i);
        valid += n ? in.substr(i, n) : "\xEF\xBF\xBD";
        i += n ? n : 1;
    }
    std::string out;
    for (char c : valid) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default: out += c;
        }
    }
    return out;
}

namespace detail {

std::string px(double v) { return fmt("%.2f", v); }

std::string rgb_hex(detail::Rgb c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

std::string svg_open(double width, double height) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
           px(width) + "\" height=\"" + px(height) + "\" viewBox=\"0 0 " + px(width) + " " + px(height) +
           "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n<rect width=\"100%\" height=\"100%\" "
           "fill=\"white\"/>\n";
}

std::string text_at(double x, double y, const std::string& content, const std::string& attrs) {
    return "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\"" + (attrs.empty() ? "" : " " + attrs) + ">" +
           xml_escape(content) + "</text>\n";
}

double text_width(const std::string& content, double font, bool bold) {
    return double(display_width(content)) * font * (bold ? 0.70 : 0.64);
}

std::string line_at(double x1, double y1, double x2, double y2, const std::string& attrs) {
    return "<line x1=\"" + px(x1) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x2) + "\" y2=\"" + px(y2) + "\" " + attrs +
           "/>\n";
}

std::string heatmap_defs(int hatch, double stroke) {
    const std::string h = std::to_string(hatch);
    std::string s = "<defs>\n<pattern id=\"masked\" width=\"" + h + "\" height=\"" + h +
                    "\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"" + h +
                    "\" height=\"" + h + "\" fill=\"#eeeeee\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"" + h +
                    "\" stroke=\"#aaaaaa\" stroke-width=\"" + fmt("%g", stroke) + "\"/></pattern>\n"
                    "<linearGradient id=\"bar\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n";
    for (int k = 0; k <= 8; ++k)
        s += "<stop offset=\"" + fmt("%.3f", k / 8.0) + "\" stop-color=\"" + rgb_hex(viridis(k / 8.0)) + "\"/>\n";
    return s + "</linearGradient>\n</defs>\n";
}

}  // namespace detail
}  // namespace attn::viz
