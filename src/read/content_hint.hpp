// Internal to src/read: what a file's first bytes say it is, for the error of a reader that
// the file's name sent there (an .npz renamed .txt, an .npy renamed .safetensors). The text
// and .npy readers recognise their input by content; the archives go by their names.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace attn::io::detail {

// The reader that failed: it leaves out its own format (a file it refused may still look like one).
enum class Hint { any, not_zip, not_safetensors };

// " (its bytes are ...)" for a zip, an .npy or a safetensors file, or UTF-16 text; "" otherwise.
inline std::string content_hint(std::string_view head, Hint reader = Hint::any) {
    if (reader != Hint::not_zip && (head.starts_with("PK\x03\x04") || head.starts_with("PK\x05\x06")))
        return " (its bytes are a zip archive: an .npz or a PyTorch checkpoint, read by the names FILE.npz, FILE.pt, "
               "FILE.pth or FILE.bin)";
    if (head.starts_with("\x93NUMPY")) return " (its bytes are an .npy file)";
    // Windows PowerShell 5's '>' writes UTF-16 with a byte-order mark
    if (head.starts_with("\xFF\xFE") || head.starts_with("\xFE\xFF"))
        return " (its bytes are UTF-16 text: attn reads UTF-8; save the file as UTF-8)";
    if (reader != Hint::not_safetensors && head.size() >= 10 && head[8] == '{' && head[9] == '"') {
        std::uint64_t n = 0;
        for (int k = 0; k < 8; ++k) n |= std::uint64_t(static_cast<unsigned char>(head[std::size_t(k)])) << (8 * k);
        if (n >= 2 && n <= head.size() - 8 + (std::uint64_t(1) << 30))
            return " (its bytes are a safetensors file, read by the name FILE.safetensors)";
    }
    return "";
}

}  // namespace attn::io::detail
