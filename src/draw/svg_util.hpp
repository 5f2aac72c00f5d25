// SVG building blocks shared by the heatmap, the grid of heads and the variance plot
// (internal to src/draw).
#pragma once
#include <string>

#include "draw/text_util.hpp"

namespace attn::viz::detail {

std::string px(double v);                  // a coordinate, 2 decimals
std::string rgb_hex(Rgb c);                // "#rrggbb"
std::string svg_open(double width, double height);  // XML declaration, <svg ...>, white background
// <text> at (x, y) with escaped content and optional extra attributes.
std::string text_at(double x, double y, const std::string& content, const std::string& attrs = "");
// The width of a line of text at `font` px, over-estimated (DejaVu Sans's widest common
// characters, digits, are 0.64 em, 0.70 em bold): what a picture widens to so a title fits.
double text_width(const std::string& content, double font, bool bold = false);
std::string line_at(double x1, double y1, double x2, double y2, const std::string& attrs);
// <defs> with the hatch pattern of masked cells (id "masked": `hatch` px tiles, lines `stroke`
// px wide) and the viridis gradient of the colour bar (id "bar").
std::string heatmap_defs(int hatch, double stroke);

}  // namespace attn::viz::detail
