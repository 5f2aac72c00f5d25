// The attention kernels, written once on the xsimd arch tag, one header each: exp.hpp, tanh.hpp,
// alibi.hpp, softmax.hpp, score_epilogue.hpp, flash.hpp, decode.hpp, additive.hpp (helpers:
// lanes.hpp, mask_lanes.hpp, kv_load.hpp, transpose.hpp). Included only by src/arch/ARCH_attention.cpp, each compiled
// with its own ISA flags; all of it has internal linkage (anonymous namespace), so no inline
// function compiled with one arch's flags can be shared with another translation unit
// (design notes §2, ODR trap).
#pragma once

#include "kernels/exp.hpp"
#include "kernels/tanh.hpp"
#include "kernels/alibi.hpp"
#include "kernels/softmax.hpp"
#include "kernels/score_epilogue.hpp"
#include "kernels/flash.hpp"
#include "kernels/decode.hpp"
#include "kernels/additive.hpp"
