#include "runtime/did_you_mean.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

namespace attn {

namespace {
char folded(char c) { return char(std::tolower(static_cast<unsigned char>(c))); }
}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Three rows of the dynamic-programming table: before last, last and this.
    std::vector<std::size_t> two(b.size() + 1), one(b.size() + 1), row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) one[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const bool same = folded(a[i - 1]) == folded(b[j - 1]);
            row[j] = std::min({one[j] + 1, row[j - 1] + 1, one[j - 1] + (same ? 0 : 1)});
            if (i > 1 && j > 1 && folded(a[i - 1]) == folded(b[j - 2]) && folded(a[i - 2]) == folded(b[j - 1]))
                row[j] = std::min(row[j], two[j - 2] + 1);
        }
        std::swap(two, one);
        std::swap(one, row);
    }
    return one[b.size()];
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates, std::string_view prefix) {
    const std::size_t bound = std::max<std::size_t>(3, given.size()) / 3;
    std::size_t best = std::numeric_limits<std::size_t>::max();
    for (const std::string& c : candidates) best = std::min(best, edit_distance(given, c));
    // None that near: the candidates the word begins, cut short ("rand", "mat"), from 3 letters.
    const auto begins = [&](const std::string& c) {
        return given.size() >= 3 && c.size() > given.size() && edit_distance(given, c.substr(0, given.size())) == 0;
    };
    std::vector<std::string> nearest;
    for (const std::string& c : candidates)
        if ((best <= bound ? edit_distance(given, c) == best : begins(c)) &&
            std::find(nearest.begin(), nearest.end(), c) == nearest.end())
            nearest.push_back(c);
    if (nearest.empty()) return "";
    std::string text = "; did you mean ";
    for (std::size_t i = 0; i < nearest.size(); ++i) {
        if (i) text += i + 1 == nearest.size() ? " or " : ", ";
        text += "'" + std::string(prefix) + nearest[i] + "'";
    }
    return text + "?";
}

}  // namespace attn
