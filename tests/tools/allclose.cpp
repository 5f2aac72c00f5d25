// allclose A.npy B.npy [--rtol R] [--atol A]
//
// Standalone (C++17, no dependencies) comparison of two NumPy .npy files, like
// numpy.allclose(a, b, rtol, atol) with equal shapes required: exit 0 when the shapes are equal
// and every |a - b| <= atol + rtol * |b| (B is the reference), 1 otherwise (the shapes, or the
// worst element with its index and both values, on stderr), 2 for a usage or file error.
// Reads '<f4' and '<f8' little-endian C-order arrays of any rank (npy format 1.0, 2.0, 3.0);
// anything else is rejected with a message. NaN never matches; equal infinities match.
// Defaults: rtol = 1e-5, atol = 1e-6.
//
//   g++ -std=c++17 -O2 -Wall -Wextra -o build/allclose tests/tools/allclose.cpp
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Array {
    std::vector<std::size_t> shape;
    std::vector<double> data;
    std::string descr;
};

std::string shape_str(const std::vector<std::size_t>& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    if (shape.size() == 1) s += ",";
    return s + ")";
}

[[noreturn]] void fail(const std::string& path, const std::string& why) {
    throw std::runtime_error(path + ": " + why);
}

// The value after 'key': in the header dict, as raw text up to the matching end.
std::string header_value(const std::string& path, const std::string& h, const std::string& key) {
    std::size_t k = h.find("'" + key + "'");
    if (k == std::string::npos) fail(path, "npy header has no '" + key + "'");
    std::size_t c = h.find(':', k);
    if (c == std::string::npos) fail(path, "malformed npy header");
    std::size_t b = h.find_first_not_of(" ", c + 1);
    if (b == std::string::npos) fail(path, "malformed npy header");
    std::size_t e;
    if (h[b] == '\'') {
        e = h.find('\'', b + 1);
        if (e == std::string::npos) fail(path, "malformed npy header");
        return h.substr(b + 1, e - b - 1);
    }
    if (h[b] == '(') {
        e = h.find(')', b);
        if (e == std::string::npos) fail(path, "malformed npy header");
        return h.substr(b, e - b + 1);
    }
    e = h.find_first_of(",}", b);
    if (e == std::string::npos) fail(path, "malformed npy header");
    std::string v = h.substr(b, e - b);
    while (!v.empty() && v.back() == ' ') v.pop_back();
    return v;
}

Array read_npy(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) fail(path, std::string("cannot open: ") + std::strerror(errno));
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    static const unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (bytes.size() < 10 || std::memcmp(bytes.data(), magic, 6) != 0) fail(path, "not a .npy file (bad magic)");
    unsigned major = bytes[6];
    std::size_t hlen, pos;
    if (major == 1) {
        hlen = bytes[8] | (std::size_t(bytes[9]) << 8);
        pos = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) fail(path, "truncated npy header");
        hlen = bytes[8] | (std::size_t(bytes[9]) << 8) | (std::size_t(bytes[10]) << 16) | (std::size_t(bytes[11]) << 24);
        pos = 12;
    } else {
        fail(path, "unsupported npy format version " + std::to_string(major));
    }
    if (hlen > bytes.size() - pos) fail(path, "truncated npy header");
    std::string h(bytes.begin() + pos, bytes.begin() + pos + hlen);
    pos += hlen;

    Array a;
    a.descr = header_value(path, h, "descr");
    std::size_t item;
    if (a.descr == "<f4") item = 4;
    else if (a.descr == "<f8") item = 8;
    else fail(path, "dtype '" + a.descr + "' is not supported (only '<f4' and '<f8', little-endian floats)");
    if (header_value(path, h, "fortran_order") != "False")
        fail(path, "Fortran-order arrays are not supported (save a C-order array: np.ascontiguousarray)");
    std::string s = header_value(path, h, "shape");  // "(2, 3)", "(5,)", "()"
    std::size_t count = 1;
    for (std::size_t i = 1; i + 1 < s.size();) {
        while (i + 1 < s.size() && (s[i] == ' ' || s[i] == ',')) ++i;
        if (i + 1 >= s.size()) break;
        std::size_t n = 0, digits = 0;
        while (i + 1 < s.size() && s[i] >= '0' && s[i] <= '9') {
            if (n > (SIZE_MAX - 9) / 10) fail(path, "shape too large");
            n = n * 10 + std::size_t(s[i] - '0');
            ++i, ++digits;
        }
        if (!digits) fail(path, "malformed shape " + s);
        a.shape.push_back(n);
        if (n && count > SIZE_MAX / n) fail(path, "shape too large");
        count *= n;
    }
    if (count > (bytes.size() - pos) / item || (bytes.size() - pos) != count * item)
        fail(path, "data size " + std::to_string(bytes.size() - pos) + " bytes does not match shape " +
                       shape_str(a.shape) + " of " + a.descr);
    a.data.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        const unsigned char* p = bytes.data() + pos + i * item;
        if (item == 4) {
            std::uint32_t u = 0;
            for (int b = 3; b >= 0; --b) u = (u << 8) | p[b];
            float v;
            std::memcpy(&v, &u, 4);
            a.data[i] = v;
        } else {
            std::uint64_t u = 0;
            for (int b = 7; b >= 0; --b) u = (u << 8) | p[b];
            double v;
            std::memcpy(&v, &u, 8);
            a.data[i] = v;
        }
    }
    return a;
}

double parse_tol(const char* opt, const char* text) {
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(text, &end);
    if (end == text || *end || errno || !std::isfinite(v) || v < 0)
        throw std::invalid_argument(std::string(opt) + " needs a finite number >= 0, got '" + text + "'");
    return v;
}

std::string index_str(std::size_t flat, const std::vector<std::size_t>& shape) {
    std::vector<std::size_t> idx(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
        idx[d] = flat % shape[d];
        flat /= shape[d];
    }
    return shape_str(idx);
}

}  // namespace

int main(int argc, char** argv) {
    const char* usage = "usage: allclose A.npy B.npy [--rtol R] [--atol A]   (pass when |a-b| <= atol + rtol*|b|;"
                        " defaults rtol 1e-5, atol 1e-6)\n";
    double rtol = 1e-5, atol = 1e-6;
    std::vector<std::string> files;
    try {
        for (int i = 1; i < argc; ++i) {
            std::string arg = argv[i];
            if (arg == "-h" || arg == "--help") {
                std::fputs(usage, stdout);
                return 0;
            }
            if (arg == "--rtol" || arg == "--atol") {
                if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
                (arg == "--rtol" ? rtol : atol) = parse_tol(argv[i], argv[i + 1]);
                ++i;
            } else if (arg.rfind("--rtol=", 0) == 0 || arg.rfind("--atol=", 0) == 0) {
                (arg[2] == 'r' ? rtol : atol) = parse_tol(arg.substr(0, 6).c_str(), arg.c_str() + 7);
            } else if (arg.size() > 1 && arg[0] == '-') {
                throw std::invalid_argument("unknown option " + arg);
            } else {
                files.push_back(arg);
            }
        }
        if (files.size() != 2) throw std::invalid_argument("expected exactly two .npy files");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "allclose: %s\n%s", e.what(), usage);
        return 2;
    }

    Array a, b;
    try {
        a = read_npy(files[0]);
        b = read_npy(files[1]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "allclose: %s\n", e.what());
        return 2;
    }
    if (a.shape != b.shape) {
        std::fprintf(stderr, "allclose: shapes differ: %s %s vs %s %s\n", files[0].c_str(), shape_str(a.shape).c_str(),
                     files[1].c_str(), shape_str(b.shape).c_str());
        return 1;
    }
    std::size_t bad = 0, worst = 0;
    double worst_excess = 0;  // how far past the tolerance; +inf for NaN or a mismatched infinity
    for (std::size_t i = 0; i < a.data.size(); ++i) {
        double x = a.data[i], y = b.data[i];
        if (x == y) continue;  // also equal infinities
        double excess = std::fabs(x - y) - (atol + rtol * std::fabs(y));
        if (!std::isfinite(excess)) excess = HUGE_VAL;
        if (excess <= 0) continue;
        ++bad;
        if (excess > worst_excess) worst_excess = excess, worst = i;
    }
    if (bad) {
        std::fprintf(stderr,
                     "allclose: %zu of %zu elements differ (rtol %g, atol %g); worst at %s: %s = %.9g, %s = %.9g,"
                     " |diff| = %.3g\n",
                     bad, a.data.size(), rtol, atol, index_str(worst, a.shape).c_str(), files[0].c_str(), a.data[worst],
                     files[1].c_str(), b.data[worst], std::fabs(a.data[worst] - b.data[worst]));
        return 1;
    }
    return 0;
}
