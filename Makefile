# attn — plain Makefile. `make` builds build/attn; `make demo` and `make test` also install
# missing Debian packages first. Per-file SIMD flags only: the rest of the program is
# compiled for the baseline ISA so the binary runs on any CPU of its family.

CXX      ?= g++
BUILD    ?= build
PREFIX   ?= /usr/local
HOST_ARCH ?= $(shell $(CXX) -dumpmachine | cut -d- -f1)
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)

DEB_PACKAGES := libxsimd-dev doctest-dev libcxxopts-dev
TEST_PACKAGES := libxml2-utils  # xmllint: the SVG tests check well-formedness with it
TEST_PACKAGES += parallel       # GNU parallel: the sharding recipe runs in the e2e tests
TEST_PACKAGES += jq             # the README recipes pipe json through jq (run by the e2e tests)
TEST_PACKAGES += man-db groff-base zsh  # the man page is rendered and the completions checked

WARN     := -Wall -Wextra -Wpedantic
CXXFLAGS ?= -O2
EXTRA_CPPFLAGS ?=
# cxxopts' regex parser compiles six std::regex objects per translation unit at start-up
# (about 2 ms, most of `attn --version`); its hand-written parser accepts the same options.
# Set for every translation unit, so that all of them see one definition of cxxopts.
CPPFLAGS += -Iinclude -Isrc -DCXXOPTS_NO_REGEX $(EXTRA_CPPFLAGS) -MMD -MP
ALL_CXXFLAGS = -std=c++20 $(WARN) $(CXXFLAGS)
LDFLAGS  ?=
# attn itself is linked statically: no dynamic loader and no shared C++ runtime to map, so
# `attn --version` starts about as fast as /bin/true, and the binary needs nothing at run
# time. Sanitizer builds (which cannot be static) pass STATIC_LDFLAGS= to turn it off.
STATIC_LDFLAGS ?= -static
LDLIBS   += -pthread

# ---- the arch table ----------------------------------------------------------------------
# src/arch/arches.def read through the preprocessor: one word per row this host family
# (HOST_ARCH) compiles, NAME|FLAG|FLAG..., from the row's host and compile_flags columns.
# Each row's translation unit NAME.cpp (in ARCH_TU_DIRS) gets exactly the row's flags.
# ARCH_DEFINES: the fake arch's test build adds a row (make test-fake-arch).
ARCH_DEFINES ?=
ARCH_TU_DIRS ?= src/arch
EXTRA_TEST_SRCS ?=
ARCH_ROWS := $(shell $(CXX) -E -P -undef -x c++ $(ARCH_DEFINES) \
                 '-DATTN_ARCH(name,lanes,tag,host,cpu,flags)=host name flags' src/arch/arches.def | \
                 awk -v host=$(HOST_ARCH) '$$1 == host || $$1 == "any" { gsub(/"/, ""); \
                     printf "%s", $$2; for (i = 3; i <= NF; i++) printf "|%s", $$i; print "" }')
arch_name  = $(firstword $(subst |, ,$(1)))
arch_flags = $(wordlist 2,999,$(subst |, ,$(1)))
arch_tu    = $(firstword $(wildcard $(addsuffix /$(call arch_name,$(1)).cpp,$(ARCH_TU_DIRS))))
ARCH_SRCS := $(foreach r,$(ARCH_ROWS),$(call arch_tu,$(r)))
ifneq ($(words $(ARCH_SRCS)),$(words $(ARCH_ROWS)))
$(error arch table: a row of src/arch/arches.def has no NAME.cpp in $(ARCH_TU_DIRS): $(ARCH_ROWS))
endif

# ---- sources ---------------------------------------------------------------------------
# Every .cpp under src/ is the library, but for the command line's own folder src/cli/ and
# the arch translation units, of which only the table's rows for this host are compiled.
# The TUs named by the table's rows (any host), of which ARCH_SRCS are this host's.
ARCH_TU_NAMES := $(addsuffix .cpp,$(addprefix src/arch/,$(shell $(CXX) -E -P -undef -x c++ -DATTN_FAKE_ARCH \
                     '-DATTN_ARCH(name,lanes,tag,host,cpu,flags)=name' src/arch/arches.def)))
LIB_SRCS := $(sort $(filter-out $(ARCH_TU_NAMES),$(shell find src -name '*.cpp' -not -path 'src/cli/*'))) $(ARCH_SRCS)
CLI_SRCS  := $(sort $(shell find src/cli -name '*.cpp'))
# The sources are compiled in bundles of consecutive files, LIB_BUNDLES for the library and
# CLI_BUNDLES for the command line (src/source-bundle.sh: each file's headers are parsed once
# per bundle, not once per file). Alone: the arch rows and OWN_FLAGS_SRCS (their own flags,
# below), and main.cpp (the fuzz harnesses link the command line without it).
OWN_FLAGS_SRCS := src/experiments/torch_rng.cpp src/experiments/numpy_rng.cpp src/attention/rope.cpp
LIB_BUNDLES ?= 8
CLI_BUNDLES ?= 3
LIB_BUNDLE_SRCS := $(foreach k,$(shell seq 1 $(LIB_BUNDLES)),$(BUILD)/gen/lib_bundle_$(k).cpp)
CLI_BUNDLE_SRCS := $(foreach k,$(shell seq 1 $(CLI_BUNDLES)),$(BUILD)/gen/cli_bundle_$(k).cpp)
# UNIT_SRCS: the unit tests compiled (default all; make test-tsan: those of its filters).
UNIT_SRCS ?= $(shell find tests/unit -name 'test_*.cpp')
# The unit tests are compiled in UNIT_BUNDLES translation units of consecutive files
# (src/source-bundle.sh --own-namespaces: each file's headers are parsed once per bundle).
UNIT_BUNDLES ?= 4
UNIT_BUNDLE_SRCS := $(foreach k,$(shell seq 1 $(UNIT_BUNDLES)),$(BUILD)/gen/unit_bundle_$(k).cpp)
TEST_SRCS := $(sort tests/unit/main.cpp $(shell find tests/oracle -name '*.cpp')) $(EXTRA_TEST_SRCS)

obj = $(patsubst %.cpp,$(BUILD)/obj/%.o,$(1))
# The arch rows first: the longest compilations start first (make -j starts them in this order).
LIB_OBJS  := $(call obj,$(ARCH_SRCS) $(OWN_FLAGS_SRCS)) $(LIB_BUNDLE_SRCS:.cpp=.o) $(BUILD)/gen/example_data.o $(BUILD)/gen/commit.o
CLI_OBJS  := $(CLI_BUNDLE_SRCS:.cpp=.o) $(call obj,src/cli/main.cpp)
TEST_OBJS := $(call obj,$(TEST_SRCS)) $(UNIT_BUNDLE_SRCS:.cpp=.o)

# Per-file flags: each arch translation unit gets exactly its row's ISA; the PyTorch-compatible
# and NumPy-compatible generators must not have multiply-adds contracted behind their back (bit-exactness).
# ARCH_OPT, after the row's flags, overrides its -O3 (the ASan build: -O1, 40% of clang's time
# for these TUs with ASan; its unit run is bound by the scalar references, not the kernels. The
# TSan run is bound by the kernels: at -O1 the stage took 226 s instead of 190).
ARCH_OPT ?=
$(foreach r,$(ARCH_ROWS),$(eval $(call obj,$(call arch_tu,$(r))): FILE_FLAGS := $(call arch_flags,$(r)) $(ARCH_OPT)))
# The generators and RoPE (OWN_FLAGS_SRCS): RoPE's rotation rounds each product as HF does
# (q·cos + rotate_half(q)·sin): no multiply-adds (aarch64's baseline has them: main's rope_row
# came out as fmadd/fmsub there).
$(call obj,$(OWN_FLAGS_SRCS)): FILE_FLAGS := -ffp-contract=off
# The unit tests mirror src/'s folders; their shared helpers stay in tests/unit/, the float64
# oracle they compare against in tests/oracle/ (reached from the tests only).
$(TEST_OBJS): CPPFLAGS += -Itests/unit -Itests
# The unit tests' own code (not the library or the oracle they call) is compiled at -O1:
# about 30% less compile time for doctest's macros, which is most of every build's test half.
# (-O0 halves clang's time with ASan, but the ASan unit run took twice as long: 492 s of CPU.)
# TEST_FLAGS: more flags for the tests' own code and the oracle (the ASan build: without
# instrumentation, half the compile time; what they call in the library is instrumented).
TEST_FLAGS ?=
$(filter $(BUILD)/obj/tests/unit/% $(BUILD)/gen/unit_bundle_%,$(TEST_OBJS)): FILE_FLAGS := -O1 $(TEST_FLAGS)
$(filter $(BUILD)/obj/tests/oracle/%,$(TEST_OBJS)): FILE_FLAGS := $(TEST_FLAGS)

.PHONY: FORCE all check-headers docs demo test test-neon test-fake-arch test-browser test-sanitize test-tsan fuzz fuzz-build fuzz-replay compare unit e2e deps install uninstall clean screenshots
# The program, its man page and its shell completions (generated by attn from its own option
# tables, so they are rebuilt with it).
DOCS := $(BUILD)/attn.1 $(BUILD)/completions/attn.bash $(BUILD)/completions/_attn
all: $(BUILD)/attn $(DOCS)

# On a machine without the three header packages, `make` names them and the command that
# installs them, instead of the compiler's "No such file" on the first source it reaches.
HEADER_PACKAGES := xsimd/xsimd.hpp:libxsimd-dev cxxopts.hpp:libcxxopts-dev doctest/doctest.h:doctest-dev
check-headers:
	@missing=; for hp in $(HEADER_PACKAGES); do \
	    printf '#if !__has_include(<%s>)\n#error\n#endif\n' "$${hp%%:*}" \
	        | $(CXX) -Iinclude $(EXTRA_CPPFLAGS) -E -x c++ - >/dev/null 2>&1 || missing="$$missing $${hp##*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "error: missing Debian packages:$$missing (\`make deps\` installs them; \`make demo\` and \`make test\` do it first)" >&2; \
	    exit 1; \
	fi

$(BUILD)/obj/%.o: %.cpp | check-headers
	@mkdir -p $(dir $@)
	$(CXX) $(CPPFLAGS) $(ALL_CXXFLAGS) $(FILE_FLAGS) -c $< -o $@

# A bundle names its files from the repository's root (-iquote .). FORCE: the script runs at
# each build, and rewrites the bundle only when its text changes (a file added or removed).
$(UNIT_BUNDLE_SRCS): $(BUILD)/gen/unit_bundle_%.cpp: FORCE
	@mkdir -p $(dir $@)
	@bash src/source-bundle.sh --own-namespaces $@ $* $(UNIT_BUNDLES) $(sort $(UNIT_SRCS))
$(LIB_BUNDLE_SRCS): $(BUILD)/gen/lib_bundle_%.cpp: FORCE
	@mkdir -p $(dir $@)
	@bash src/source-bundle.sh $@ $* $(LIB_BUNDLES) $(filter-out $(ARCH_SRCS) $(OWN_FLAGS_SRCS),$(LIB_SRCS))
$(CLI_BUNDLE_SRCS): $(BUILD)/gen/cli_bundle_%.cpp: FORCE
	@mkdir -p $(dir $@)
	@bash src/source-bundle.sh $@ $* $(CLI_BUNDLES) $(filter-out src/cli/main.cpp,$(CLI_SRCS))
$(UNIT_BUNDLE_SRCS:.cpp=.o) $(LIB_BUNDLE_SRCS:.cpp=.o) $(CLI_BUNDLE_SRCS:.cpp=.o): %.o: %.cpp | check-headers
	$(CXX) $(CPPFLAGS) -iquote . $(ALL_CXXFLAGS) $(FILE_FLAGS) -c $< -o $@
FORCE:

# The worked examples' data files, compiled into the binary as raw string literals.
EXAMPLE_FILES := $(sort $(wildcard data/examples/*/*.txt))
$(BUILD)/gen/example_data.cpp: $(EXAMPLE_FILES) Makefile
	@mkdir -p $(dir $@)
	@{ echo '// Generated by the Makefile from data/examples/ — do not edit.'; \
	   echo '#include "experiments/example_data.hpp"'; \
	   echo 'namespace attn::worked_examples {'; \
	   echo 'const EmbeddedFile embedded_examples[] = {'; \
	   for f in $(EXAMPLE_FILES); do printf '{"%s", R"attn_data(' "$${f#data/examples/}"; cat "$$f"; echo ')attn_data"},'; done; \
	   echo '};'; \
	   echo 'const std::size_t embedded_example_count = sizeof(embedded_examples) / sizeof(embedded_examples[0]);'; \
	   echo '}'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/example_data.o: $(BUILD)/gen/example_data.cpp
	$(CXX) $(CPPFLAGS) $(ALL_CXXFLAGS) -c $< -o $@

# The commit attn is built from, for `attn --version` (+ when the tree had changes; unknown
# outside a git checkout): rewritten only when it changes, so that an unchanged tree relinks nothing.
$(BUILD)/gen/commit.cpp: FORCE
	@mkdir -p $(dir $@)
	@c=$$(git rev-parse --short=7 HEAD 2>/dev/null || echo unknown); \
	 [ "$$c" = unknown ] || git diff --quiet HEAD -- 2>/dev/null || c="$$c+"; \
	 printf '// Generated by the Makefile: the commit of `attn --version`.\n#include "attn/version.hpp"\nconst char attn::build_commit[] = "%s";\n' "$$c" > $@.tmp; \
	 if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/gen/commit.o: $(BUILD)/gen/commit.cpp
	$(CXX) $(CPPFLAGS) $(ALL_CXXFLAGS) -c $< -o $@

$(BUILD)/attn: $(LIB_OBJS) $(CLI_OBJS)
	$(CXX) $(ALL_CXXFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) $(CLI_OBJS) $(LIB_OBJS) -o $@ $(LDLIBS)

docs: $(DOCS)
$(BUILD)/attn.1: $(BUILD)/attn
	$(BUILD)/attn help --man > $@.tmp && mv $@.tmp $@
$(BUILD)/completions/attn.bash: $(BUILD)/attn
	@mkdir -p $(dir $@)
	$(BUILD)/attn completions bash > $@.tmp && mv $@.tmp $@
$(BUILD)/completions/_attn: $(BUILD)/attn
	@mkdir -p $(dir $@)
	$(BUILD)/attn completions zsh > $@.tmp && mv $@.tmp $@

# The library first: of an inline function that both define, the linker keeps the library's copy
# (the instrumented one, when the tests' own code is not: TEST_FLAGS).
$(BUILD)/attn_tests: $(LIB_OBJS) $(TEST_OBJS)
	$(CXX) $(ALL_CXXFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# Compares two .npy files like numpy.allclose (the PyTorch parity tests use it); standalone.
$(BUILD)/allclose: tests/tools/allclose.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 $(WARN) $< -o $@

deps:
	@bash .ci/ensure-packages $(DEB_PACKAGES)

# The headline worked example: the tutorial's simple self-attention, next to its values.
demo: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	$(BUILD)/attn example simple

# The whole suite: unit tests (doctest) + end-to-end tests through the real binary.
# The last line is "N passed, N failed".
test: deps
	@bash .ci/ensure-packages $(TEST_PACKAGES)
	@$(MAKE) --no-print-directory -j$(JOBS) all docs $(BUILD)/attn_tests $(BUILD)/allclose
	@bash tests/run-all.sh $(BUILD)

# NEON for real: cross-compile the unit tests statically for aarch64 and run them under
# qemu-aarch64 (there the dispatch tests check that the aarch64 features are detected and the
# table's widest supported row is selected: tests/unit/runtime/test_dispatch.cpp). The
# header-only dependencies are shared with the host through a directory of links (adding all
# of /usr/include would mix in the host's libc headers).
NEON_BUILD    := build-neon
NEON_CXX      := aarch64-linux-gnu-g++
NEON_PACKAGES := g++-aarch64-linux-gnu qemu-user $(DEB_PACKAGES)
test-neon:
	@bash .ci/ensure-packages $(NEON_PACKAGES)
	@mkdir -p $(NEON_BUILD)/sysinc
	@ln -sfn /usr/include/xsimd $(NEON_BUILD)/sysinc/xsimd
	@ln -sfn /usr/include/doctest $(NEON_BUILD)/sysinc/doctest
	@ln -sf /usr/include/cxxopts.hpp $(NEON_BUILD)/sysinc/cxxopts.hpp
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=$(NEON_BUILD) CXX=$(NEON_CXX) HOST_ARCH=aarch64 LDFLAGS=-static \
		EXTRA_CPPFLAGS="-isystem$(NEON_BUILD)/sysinc -Wno-psabi" $(NEON_BUILD)/attn_tests
	@bash tests/run-neon.sh $(NEON_BUILD)

# Sanitizers: clang with AddressSanitizer + UndefinedBehaviorSanitizer (any UB report is fatal)
# into build-asan, then the whole suite (unit + e2e) against it. -O1 keeps the build and the
# run short; the exhaustive float sweeps take every 6101st pattern instead of every 61st
# (ATTN_TEST_SWEEP_STRIDE), the threaded tests compare 1 thread with 7 only (ATTN_TEST_THREADS;
# the bits for 2, 3 and 7 are make test's and test-tsan's) and the e2e checks that need
# ulimit -v are skipped (ATTN_SANITIZER).
# LeakSanitizer checks the unit tests and the fuzzers (which run the command line in-process);
# the e2e processes run without it (its exit scan was half of each process's time, 36 of 75 ms).
# The binaries are linked without PIE: 236,000 dynamic relocations fewer at each start.
# The objects carry libFuzzer's coverage instrumentation too (fuzzer-no-link), so that the
# fuzz harnesses below link against them instead of a third build.
# The kernels' translation units (ASAN_ARCH_OPT) call the runtime for each check instead of
# inlining it, and carry no fuzzer coverage (the kernels' branches follow the shapes, not the
# bytes of an input): on the Zen 5 EPYC clang took 58 s instead of 35 for avx512.o alone,
# about 70 s of the build's 560 s of CPU over the three, for 10-20 s more of the unit run.
# The e2e processes do not register globals (report_globals=0; the unit tests do): 6 of each
# start's 30 ms there, most of it page faults on the shadow, over about 4,600 processes.
# The build also holds the fake arch: adding an arch is one row in src/arch/arches.def plus its
# translation unit. The row under ATTN_FAKE_ARCH and its TU and test (tests/fake_arch/) add a
# kernel set, sse4_2 (x86 hosts), so every kernel test of the suite runs on it too, and the
# binary must select it by name (FAKE_ARCH_CHECK). `make test-fake-arch` runs only that part.
SAN_PACKAGES := clang libclang-rt-14-dev $(DEB_PACKAGES) $(TEST_PACKAGES)
ASAN_BUILD   := build-asan
ASAN_FLAGS   := -O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                -fsanitize=fuzzer-no-link
ASAN_ARCH_OPT := -O1 -fno-sanitize=fuzzer-no-link -mllvm -asan-instrumentation-with-call-threshold=0
ASAN_MAKE     = $(MAKE) --no-print-directory -j$(JOBS) BUILD=$(ASAN_BUILD) CXX=clang++ CXXFLAGS="$(ASAN_FLAGS)" ARCH_OPT="$(ASAN_ARCH_OPT)" \
                TEST_FLAGS=-fno-sanitize=address,undefined,fuzzer-no-link \
                LDFLAGS="-fsanitize=address,undefined -no-pie" STATIC_LDFLAGS= \
                ARCH_DEFINES=-DATTN_FAKE_ARCH EXTRA_CPPFLAGS=-DATTN_FAKE_ARCH ARCH_TU_DIRS="src/arch tests/fake_arch" \
                EXTRA_TEST_SRCS="$(wildcard tests/fake_arch/test_*.cpp)"
ASAN_ENV     := ATTN_SANITIZER=address ATTN_TEST_SWEEP_STRIDE=6101 ATTN_TEST_THREADS=7 ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
                E2E_ASAN_OPTIONS=detect_leaks=0:report_globals=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
FAKE_ARCH_CHECK = ATTN_ARCH=fake $(ASAN_BUILD)/attn --version | grep -q 'kernels: fake' \
                  || { echo "attn does not select the fake arch"; exit 1; }; echo "fake arch: listed, selected and checked against scalar"
test-sanitize:
	@bash .ci/ensure-packages $(SAN_PACKAGES)
	@$(ASAN_MAKE) $(ASAN_BUILD)/attn $(ASAN_BUILD)/attn_tests $(ASAN_BUILD)/allclose
	@$(ASAN_ENV) bash tests/run-all.sh $(ASAN_BUILD)
	@$(FAKE_ARCH_CHECK)
test-fake-arch:
	@bash .ci/ensure-packages $(SAN_PACKAGES)
	@$(ASAN_MAKE) $(ASAN_BUILD)/attn $(ASAN_BUILD)/attn_tests
	@$(ASAN_ENV) bash tests/run-unit.sh $(ASAN_BUILD)/fake-counts $(ASAN_BUILD)/attn_tests -tc='*arch*'
	@$(FAKE_ARCH_CHECK)

# Fuzzing (libFuzzer): harnesses in tests/fuzz for the text reader, the npy reader and the
# command line, linked with -fsanitize=fuzzer,address,undefined against the objects of
# build-asan (compiled with coverage for this reason: one build serves both). `make fuzz
# FUZZ_S=N` runs each harness for N seconds from the checked-in seeds; `make fuzz-replay`
# only replays the seeds (every crash ever found stays there as a regression input).
FUZZ_S     ?= 60
FUZZ_NAMES := text npy cli model
FUZZ_BINS  := $(addprefix $(ASAN_BUILD)/fuzz/fuzz_,$(FUZZ_NAMES))
# Kept between runs (fuzz-replay, then fuzz): as intermediates of the pattern rules they were
# deleted after each link, and the next target compiled them again.
.SECONDARY: $(FUZZ_NAMES:%=$(BUILD)/obj/tests/fuzz/fuzz_%.o)
$(BUILD)/obj/tests/fuzz/%.o: CPPFLAGS += -Itests/fuzz
$(BUILD)/fuzz/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(LIB_OBJS) $(filter-out %/main.o,$(CLI_OBJS))
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_CXXFLAGS) -fsanitize=fuzzer,address,undefined $^ -o $@ $(LDLIBS)
fuzz-build:
	@bash .ci/ensure-packages $(SAN_PACKAGES)
	@$(ASAN_MAKE) $(FUZZ_BINS)
fuzz: fuzz-build
	@bash tests/fuzz/run.sh $(ASAN_BUILD)/fuzz $(FUZZ_S)
fuzz-replay: fuzz-build
	@bash tests/fuzz/run.sh $(ASAN_BUILD)/fuzz 0

# ThreadSanitizer (clang, -fsanitize=thread, into build-tsan): the tests that run threads (the
# pool, dispatch and kernels; the text reader's and writer's bands of rows; the threaded checks
# of mapped inputs; each variant's "the same bits for threads ..." test), each with 1, 2, 3
# and 7 threads (ATTN_TEST_THREADS=2,3,7), in shards side by side (tests/run-unit.sh). Only the
# unit-test files that hold such a case are compiled (tests/unit-sources.sh; 15 of 55 files, a
# third of the compile time), and the binary must count as many cases as the script found.
TSAN_BUILD := build-tsan
TSAN_FLAGS := -O1 -gline-tables-only -fsanitize=thread
TSAN_TESTS := dispatch*,parallel_for*,gemm*,flash*,attend*,split-K*
TSAN_TESTS := $(TSAN_TESTS),number text: long runs*,number text: a long run*,number text: csv*
TSAN_TESTS := $(TSAN_TESTS),inputs: a text input*,inputs: a mapped*
TSAN_TESTS := $(TSAN_TESTS),*the same bits for*
test-tsan:
	@bash .ci/ensure-packages $(SAN_PACKAGES)
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=$(TSAN_BUILD) CXX=clang++ CXXFLAGS="$(TSAN_FLAGS)" \
		LDFLAGS="-fsanitize=thread" STATIC_LDFLAGS= UNIT_SRCS="$$(bash tests/unit-sources.sh '$(TSAN_TESTS)')" \
		$(TSAN_BUILD)/attn_tests
	@want=$$(bash tests/unit-sources.sh --count '$(TSAN_TESTS)'); \
	 got=$$($(TSAN_BUILD)/attn_tests --count -tc='$(TSAN_TESTS)' | sed -n 's/.*filters: *//p'); \
	 [ "$$want" = "$$got" ] || { echo "test-tsan: tests/unit-sources.sh found $$want cases, the binary $$got"; exit 1; }
	@ATTN_TEST_THREADS=2,3,7 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
		bash tests/run-unit.sh $(TSAN_BUILD)/counts $(TSAN_BUILD)/attn_tests -tc='$(TSAN_TESTS)' -ni
	@echo "ThreadSanitizer: no race with 1, 2, 3 or 7 threads"

# Side-by-side timing against NumPy/OpenBLAS and PyTorch (installs them if missing), and
# decoding against ggml when GGML_DIR holds a ggml you built. A measurement, not a test: see
# tests/perf/compare.sh.
compare: all
	@bash tests/perf/compare.sh $(BUILD)/attn

# The library the CLI drives, for programs that include <attn/...>: link with -lattn -pthread.
$(BUILD)/libattn.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

install: $(BUILD)/attn $(BUILD)/libattn.a $(DOCS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/attn $(DESTDIR)$(PREFIX)/lib \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 755 $(BUILD)/attn $(DESTDIR)$(PREFIX)/bin/attn
	install -m 644 $(BUILD)/attn.1 $(DESTDIR)$(PREFIX)/share/man/man1/attn.1
	install -m 644 $(BUILD)/completions/attn.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/attn
	install -m 644 $(BUILD)/completions/_attn $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_attn
	install -m 644 include/attn/*.hpp $(DESTDIR)$(PREFIX)/include/attn/
	install -m 644 $(BUILD)/libattn.a $(DESTDIR)$(PREFIX)/lib/libattn.a

# Removes what install put there (the headers by the names this tree has), nothing else.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/attn $(DESTDIR)$(PREFIX)/share/man/man1/attn.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/attn $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_attn \
		$(DESTDIR)$(PREFIX)/lib/libattn.a $(addprefix $(DESTDIR)$(PREFIX)/,$(wildcard include/attn/*.hpp))
	-rmdir $(DESTDIR)$(PREFIX)/include/attn 2>/dev/null

clean:
	rm -rf $(BUILD)

# Example SVGs rendered to PNG with headless Chromium (installed if missing), for people to
# look at; not part of `make test`. Writes data/screenshots/*.png.
screenshots: $(BUILD)/attn $(BUILD)/svg_examples
	@bash .ci/ensure-packages chromium
	bash tests/screenshots/render.sh $(BUILD) data/screenshots

# The interactive HTML view in headless Chromium (installed if missing): the lines the page
# draws must equal the weights given; saves data/screenshots/html_view.png. Run by .ci/run.
test-browser: $(BUILD)/attn $(BUILD)/html_example
	@bash .ci/ensure-packages chromium
	@bash tests/browser/run.sh $(BUILD) data/screenshots

$(BUILD)/html_example: $(call obj,tests/browser/html_example.cpp) $(LIB_OBJS)
	$(CXX) $(ALL_CXXFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/svg_examples: $(call obj,tests/screenshots/svg_examples.cpp) $(LIB_OBJS)
	$(CXX) $(ALL_CXXFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(wildcard $(BUILD)/obj/tests/fuzz/*.d) \
         $(wildcard $(BUILD)/obj/tests/browser/*.d $(BUILD)/obj/tests/screenshots/*.d)
