#pragma once
#define ATTN_VERSION "0.1.0"

namespace attn {
// The git commit the binary was built from (7 hex digits, + when the tree had changes; "unknown"
// outside a checkout), written by the Makefile (build/gen/commit.cpp).
extern const char build_commit[];
}
