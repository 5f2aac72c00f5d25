// A small DEFLATE decoder (RFC 1951) in the manner of zlib's puff.c: canonical Huffman codes
// decoded bit by bit, every code table checked (over-subscribed or incomplete codes are
// refused), every distance checked against the output so far, the output bounded by the
// size the archive declares; or only the first bytes (an .npy header for attn ls), the rest of
// the stream left undecoded. Slow next to zlib, but .npz members are small and this keeps
// attn free of dependencies.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "attn/error.hpp"
#include "read/model/zip.hpp"
#include "runtime/system_memory.hpp"

namespace attn::io {

namespace {

constexpr int max_bits = 15;       // longest code
constexpr int max_lcodes = 286;    // literal/length codes
constexpr int max_dcodes = 30;     // distance codes
constexpr int fixed_lcodes = 288;  // the fixed code defines 288 (two unused)

struct Huffman {
    std::array<short, max_bits + 1> count{};  // codes of each length
    std::array<short, fixed_lcodes> symbol{};  // symbols ordered by code
};

class Inflater {
public:
    Inflater(std::string_view in, std::size_t size, std::size_t limit, const std::string& source)
        : in_(in), size_(size), limit_(std::min(limit, size)), source_(source) {
        reserve_checked(out_, limit_);
    }

    std::string run() {
        bool last = false;
        while (!last && !full()) {
            last = bits(1);
            switch (bits(2)) {
                case 0: stored(); break;
                case 1: fixed(); break;
                case 2: dynamic(); break;
                default: fail("invalid block type 3");
            }
        }
        if (full()) return std::move(out_);  // a prefix: the rest is not decoded
        if (out_.size() != size_)
            fail("inflates to " + std::to_string(out_.size()) + " bytes, the archive says " + std::to_string(size_));
        if (pos_ != in_.size()) fail(std::to_string(in_.size() - pos_) + " unexpected bytes after the compressed data");
        return std::move(out_);
    }

private:
    std::string_view in_;
    std::size_t size_;
    std::size_t limit_;  // stop once this many bytes are out (size_: the whole stream)
    const std::string& source_;
    std::string out_;
    std::size_t pos_ = 0;       // next input byte
    std::uint32_t bitbuf_ = 0;  // bits not yet used, LSB first
    int bitcnt_ = 0;

    [[noreturn]] void fail(const std::string& m) const { throw InputError(source_ + ": deflate data: " + m); }

    int bits(int need) {
        std::uint32_t val = bitbuf_;
        while (bitcnt_ < need) {
            if (pos_ == in_.size()) fail("truncated");
            val |= std::uint32_t(static_cast<unsigned char>(in_[pos_++])) << bitcnt_;
            bitcnt_ += 8;
        }
        bitbuf_ = val >> need;
        bitcnt_ -= need;
        return int(val & ((1u << need) - 1));
    }

    // A prefix is complete (never for the whole stream, which must also reach its end).
    bool full() const { return limit_ < size_ && out_.size() >= limit_; }

    void put(char c) {
        if (out_.size() == size_) fail("inflates to more than the " + std::to_string(size_) + " bytes the archive says");
        out_ += c;
    }

    void stored() {
        bitbuf_ = 0, bitcnt_ = 0;  // to a byte boundary
        if (in_.size() - pos_ < 4) fail("truncated");
        auto byte = [&](std::size_t k) { return unsigned(static_cast<unsigned char>(in_[pos_ + k])); };
        const unsigned len = byte(0) | byte(1) << 8, nlen = byte(2) | byte(3) << 8;
        pos_ += 4;
        if (len != (~nlen & 0xffff)) fail("stored block length does not match its complement");
        if (in_.size() - pos_ < len) fail("truncated");
        for (unsigned k = 0; k < len && !full(); ++k) put(in_[pos_ + k]);
        pos_ += len;
    }

    int decode(const Huffman& h) {
        int code = 0, first = 0, index = 0;
        for (int len = 1; len <= max_bits; ++len) {
            code |= bits(1);
            const int count = h.count[std::size_t(len)];
            if (code - count < first) return h.symbol[std::size_t(index + (code - first))];
            index += count;
            first += count;
            first <<= 1;
            code <<= 1;
        }
        fail("invalid Huffman code");
    }

    // Builds a canonical code from code lengths; returns 0 when complete, > 0 when incomplete
    // (codes left over), and fails when over-subscribed.
    int construct(Huffman& h, const short* length, int n) {
        h.count.fill(0);
        for (int s = 0; s < n; ++s) ++h.count[std::size_t(length[s])];
        if (h.count[0] == n) return 0;  // no codes: complete, but decoding will fail
        int left = 1;
        for (int len = 1; len <= max_bits; ++len) {
            left <<= 1;
            left -= h.count[std::size_t(len)];
            if (left < 0) fail("over-subscribed Huffman code");
        }
        std::array<short, max_bits + 1> offs{};
        for (int len = 1; len < max_bits; ++len) offs[std::size_t(len + 1)] = short(offs[std::size_t(len)] + h.count[std::size_t(len)]);
        for (int s = 0; s < n; ++s)
            if (length[s] != 0) h.symbol[std::size_t(offs[std::size_t(length[s])]++)] = short(s);
        return left;
    }

    void codes(const Huffman& lencode, const Huffman& distcode) {
        static constexpr short lbase[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                            35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
        static constexpr short lext[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
        static constexpr short dbase[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129,
                                            193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
        static constexpr short dext[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
        while (!full()) {
            int symbol = decode(lencode);
            if (symbol < 256) {
                put(char(symbol));
                continue;
            }
            if (symbol == 256) return;
            symbol -= 257;
            if (symbol >= 29) fail("invalid length code");
            const std::size_t len = std::size_t(lbase[symbol] + bits(lext[symbol]));
            symbol = decode(distcode);
            if (symbol >= 30) fail("invalid distance code");
            const std::size_t dist = std::size_t(dbase[symbol] + bits(dext[symbol]));
            if (dist > out_.size()) fail("distance too far back");
            for (std::size_t k = 0; k < len && !full(); ++k) put(out_[out_.size() - dist]);
        }
    }

    void fixed() {
        static const auto tables = [] {
            std::array<short, fixed_lcodes + max_dcodes> lengths{};
            int s = 0;
            for (; s < 144; ++s) lengths[std::size_t(s)] = 8;
            for (; s < 256; ++s) lengths[std::size_t(s)] = 9;
            for (; s < 280; ++s) lengths[std::size_t(s)] = 7;
            for (; s < fixed_lcodes; ++s) lengths[std::size_t(s)] = 8;
            for (; s < fixed_lcodes + max_dcodes; ++s) lengths[std::size_t(s)] = 5;
            return lengths;
        }();
        Huffman lencode, distcode;
        construct(lencode, tables.data(), fixed_lcodes);
        construct(distcode, tables.data() + fixed_lcodes, max_dcodes);
        codes(lencode, distcode);
    }

    void dynamic() {
        static constexpr short order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
        const int nlen = bits(5) + 257, ndist = bits(5) + 1, ncode = bits(4) + 4;
        if (nlen > max_lcodes || ndist > max_dcodes) fail("too many length or distance codes");
        std::array<short, max_lcodes + max_dcodes> lengths{};
        for (int k = 0; k < ncode; ++k) lengths[std::size_t(order[k])] = short(bits(3));
        Huffman lencode, distcode;
        if (construct(lencode, lengths.data(), 19) != 0) fail("incomplete code-length code");
        lengths.fill(0);
        for (int index = 0; index < nlen + ndist;) {
            int symbol = decode(lencode);
            if (symbol < 16) {
                lengths[std::size_t(index++)] = short(symbol);
                continue;
            }
            short len = 0;
            if (symbol == 16) {
                if (index == 0) fail("repeat with no first length");
                len = lengths[std::size_t(index - 1)];
                symbol = 3 + bits(2);
            } else if (symbol == 17) {
                symbol = 3 + bits(3);
            } else {
                symbol = 11 + bits(7);
            }
            if (index + symbol > nlen + ndist) fail("too many code lengths");
            while (symbol--) lengths[std::size_t(index++)] = len;
        }
        if (lengths[256] == 0) fail("no end-of-block code");
        // Incomplete codes are allowed only for a single length-1 code (RFC 1951 and zlib).
        int left = construct(lencode, lengths.data(), nlen);
        if (left != 0 && nlen != lencode.count[0] + lencode.count[1]) fail("incomplete literal/length code");
        left = construct(distcode, lengths.data() + nlen, ndist);
        if (left != 0 && ndist != distcode.count[0] + distcode.count[1]) fail("incomplete distance code");
        codes(lencode, distcode);
    }
};

}  // namespace

std::string inflate(std::string_view compressed, std::size_t size, const std::string& source, std::size_t limit) {
    return Inflater(compressed, size, limit, source).run();
}

}  // namespace attn::io
