# attn — plain Makefile. `make` builds build/attn; `make demo` and `make test` also install
# missing Debian packages first. Per-file SIMD flags only: the rest of the program is
# compiled for the baseline ISA so the binary runs on any CPU of its family.

CXX      ?= g++
BUILD    ?= build
PREFIX   ?= /usr/local
HOST_ARCH ?= $(shell $(CXX) -dumpmachine | cut -d- -f1)

DEB_PACKAGES := libxsimd-dev doctest-dev libcxxopts-dev

WARN     := -Wall -Wextra -Wpedantic
CXXFLAGS ?= -O2 -g
EXTRA_CPPFLAGS ?=
CPPFLAGS += -Iinclude -Isrc $(EXTRA_CPPFLAGS) -MMD -MP
ALL_CXXFLAGS = -std=c++20 $(WARN) $(CXXFLAGS)
LDFLAGS  ?=
LDLIBS   += -pthread

# ---- sources ---------------------------------------------------------------------------
LIB_SRCS := $(wildcard src/*.cpp src/kernels/*.cpp src/io/*.cpp src/rng/*.cpp src/viz/*.cpp src/arch/*.cpp)
ifeq ($(HOST_ARCH),aarch64)
LIB_SRCS := $(filter-out src/arch/avx%,$(LIB_SRCS))
else
LIB_SRCS := $(filter-out src/arch/neon%,$(LIB_SRCS))
endif
CLI_SRCS  := $(wildcard src/cli/*.cpp)
TEST_SRCS := $(wildcard tests/unit/*.cpp)

obj = $(patsubst %.cpp,$(BUILD)/obj/%.o,$(1))
LIB_OBJS  := $(call obj,$(LIB_SRCS))
CLI_OBJS  := $(call obj,$(CLI_SRCS))
TEST_OBJS := $(call obj,$(TEST_SRCS))

# Per-file flags: each arch translation unit gets exactly its ISA; the PyTorch-compatible
# generator must not have multiply-adds contracted behind its back (bit-exactness).
$(BUILD)/obj/src/arch/avx2%.o:   FILE_FLAGS := -O3 -mavx2 -mfma
$(BUILD)/obj/src/arch/avx512%.o: FILE_FLAGS := -O3 -mavx512f -mavx512dq -mavx512vl -mavx512bw -mavx2 -mfma
$(BUILD)/obj/src/arch/neon%.o:   FILE_FLAGS := -O3
$(BUILD)/obj/src/rng/%.o:        FILE_FLAGS := -ffp-contract=off

.PHONY: all demo test test-neon compare unit e2e deps install clean
all: $(BUILD)/attn

$(BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CPPFLAGS) $(ALL_CXXFLAGS) $(FILE_FLAGS) -c $< -o $@

$(BUILD)/attn: $(CLI_OBJS) $(LIB_OBJS)
	$(CXX) $(ALL_CXXFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/attn_tests: $(TEST_OBJS) $(LIB_OBJS)
	$(CXX) $(ALL_CXXFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

deps:
	@bash .ci/ensure-packages $(DEB_PACKAGES)

# The headline worked example: the tutorial's simple self-attention, next to its values.
demo: deps
	@$(MAKE) --no-print-directory all
	$(BUILD)/attn example simple

# The whole suite: unit tests (doctest) + end-to-end tests through the real binary.
# The last line is "N passed, N failed".
test: deps
	@$(MAKE) --no-print-directory all $(BUILD)/attn_tests
	@bash tests/run-all.sh $(BUILD)

# NEON for real: cross-compile the unit tests (and attn) statically for aarch64 and run them
# under qemu-aarch64. The header-only dependencies are shared with the host through a
# directory of links (adding all of /usr/include would mix in the host's libc headers).
NEON_BUILD    := build-neon
NEON_CXX      := aarch64-linux-gnu-g++
NEON_PACKAGES := g++-aarch64-linux-gnu qemu-user $(DEB_PACKAGES)
test-neon:
	@bash .ci/ensure-packages $(NEON_PACKAGES)
	@mkdir -p $(NEON_BUILD)/sysinc
	@ln -sfn /usr/include/xsimd $(NEON_BUILD)/sysinc/xsimd
	@ln -sfn /usr/include/doctest $(NEON_BUILD)/sysinc/doctest
	@ln -sf /usr/include/cxxopts.hpp $(NEON_BUILD)/sysinc/cxxopts.hpp
	@$(MAKE) --no-print-directory BUILD=$(NEON_BUILD) CXX=$(NEON_CXX) HOST_ARCH=aarch64 LDFLAGS=-static \
		EXTRA_CPPFLAGS=-I$(NEON_BUILD)/sysinc $(NEON_BUILD)/attn_tests $(NEON_BUILD)/attn
	@bash tests/run-neon.sh $(NEON_BUILD)

# Side-by-side timing against NumPy/OpenBLAS and PyTorch (installs them if missing). A
# measurement, not a test: see tests/perf/compare.sh.
compare: all
	@bash tests/perf/compare.sh $(BUILD)/attn

install: $(BUILD)/attn
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/attn
	install -m 755 $(BUILD)/attn $(DESTDIR)$(PREFIX)/bin/attn
	install -m 644 include/attn/*.hpp $(DESTDIR)$(PREFIX)/include/attn/

clean:
	rm -rf $(BUILD)

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(TEST_OBJS:.o=.d)
