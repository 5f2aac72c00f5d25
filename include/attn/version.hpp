#pragma once
#define ATTN_VERSION "0.1.0"
