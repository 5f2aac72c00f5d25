// Internal to src/io: the bytes of one input, mapped when it is a regular file (no copy, and
// memory the kernel can drop and reload), read whole otherwise (standard input, pipes).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace attn::io::detail {

class InputBytes {
public:
    // Throws InputError with read_file's messages (missing file, directory, NUL byte in
    // text, more than 2 GiB).
    explicit InputBytes(const std::string& path);
    ~InputBytes();
    InputBytes(const InputBytes&) = delete;
    InputBytes& operator=(const InputBytes&) = delete;

    std::string_view view() const noexcept { return map_ ? std::string_view(map_, size_) : std::string_view(read_); }
    bool mapped() const noexcept { return map_ != nullptr; }

    // Test hook: false makes every InputBytes read its file instead of mapping it.
    static void allow_mapping(bool allowed) noexcept;

private:
    const char* map_ = nullptr;
    std::size_t size_ = 0;
    std::string read_;  // when not mapped
};

}  // namespace attn::io::detail
