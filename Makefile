# gpuscope: `make demo` runs the main job, `make test` the whole test suite.
# Both install missing Debian packages first (`make setup`, scripts/setup.sh); `make build` only
# configures and builds, and never installs anything (CMake names a missing dependency).
BUILD ?= build
JOBS ?= $(shell nproc)
# ON turns every compiler warning into an error (CI sets it: .ci/run).
GPUSCOPE_WERROR ?= OFF
# The build's debug information: CI sets -g0 (a sanitizer report still names its functions; ASan's
# compile time with -g1 is 7 to 11 % longer); `make sanitize` and a developer's build keep full -g.
GPUSCOPE_DEBUG_INFO ?= -g
# Sanitizers for every C++ object, e.g. address,undefined (`make sanitize`), thread, or CI's
# address with UBSan's arithmetic and bounds checks (.ci/run): the build is then at -O1 (ASan's
# advice: fast enough, exact reports) and leaves out the CUDA samples and the benchmarks; its
# tests fail on any sanitizer report (scripts/run_tests.sh). -O0 compiles faster but CI gains
# nothing (docs/testing.md). Give each its own BUILD folder.
SANITIZE ?=
OPTIMIZE := $(if $(SANITIZE),-O1,-O2)
# ON compiles the biggest targets' sources in batches (a unity build, CMakeLists.txt): faster
# from cold (CI sets it: .ci/run), slower to rebuild after a change.
UNITY ?= OFF
# Only these targets (default: all).
TARGETS ?=
# ccache (scripts/setup.sh installs it) where it is installed. Paths relative to the checkout, so
# another checkout on the same machine shares its hits.
CCACHE := $(shell command -v ccache 2>/dev/null)
export CCACHE_BASEDIR ?= $(CURDIR)
# The precompiled headers (CMakeLists.txt) are cached only with this sloppiness (ccache's manual).
export CCACHE_SLOPPINESS ?= pch_defines,time_macros,include_file_mtime,include_file_ctime

.PHONY: all setup build demo test sanitize gpu-test bench fuzz format clean

all: build

setup:
	@scripts/setup.sh

build:
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUSCOPE_WERROR=$(GPUSCOPE_WERROR) -DGPUSCOPE_UNITY=$(UNITY) \
	       -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(OPTIMIZE) $(GPUSCOPE_DEBUG_INFO) -DNDEBUG" \
	       -DGPUSCOPE_SANITIZE=$(SANITIZE) $(if $(SANITIZE),-DGPUSCOPE_BUILD_BENCH=OFF -DGPUSCOPE_BUILD_SAMPLES=OFF) \
	       $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE)) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) $(if $(TARGETS),--target $(TARGETS))

# The set-up first, then the build (a sub-make: never in parallel with the set-up under -j).
demo: setup
	@$(MAKE) --no-print-directory build
	@scripts/demo.sh $(BUILD)

# CPU tests always run; the GPU test skips with a message where there is no GPU.
test: setup
	@$(MAKE) --no-print-directory build
	@JOBS=$(JOBS) scripts/run_tests.sh $(BUILD)

# The sanitizer builds: ASan+UBSan (build-asan, everything `test` runs) and TSan (build-tsan, the
# capture library's tests), see scripts/sanitize.sh and docs/testing.md.
sanitize: setup
	@JOBS=$(JOBS) GPUSCOPE_WERROR=$(GPUSCOPE_WERROR) GPUSCOPE_DEBUG_INFO=$(GPUSCOPE_DEBUG_INFO) scripts/sanitize.sh

# On a GPU host, with a build made there or carried there.
gpu-test:
	@tests/gpu/run_gpu_tests.sh $(BUILD)

bench:
	@bench/overhead.sh $(BUILD)

# libFuzzer campaigns over every reader (docs/fuzzing.md): a clang build with ASan+UBSan in
# build-fuzz, then each target for FUZZ_SECONDS on FUZZ_JOBS cores; results in FUZZ_OUT.
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= $(JOBS)
FUZZ_OUT ?= build-fuzz/campaign
fuzz: setup
	@command -v clang++ >/dev/null || { echo "make fuzz: needs clang and libFuzzer (apt-get install clang libclang-rt-14-dev)"; exit 2; }
	@cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DGPUSCOPE_FUZZ=ON >/dev/null
	@cmake --build build-fuzz -j $(JOBS) --target gpuscope_fuzzers
	@tests/fuzz/campaign.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_OUT)

# The C++ sources in .clang-format's style: `make format` rewrites them, scripts/format.sh --check
# (CI's first step) lists those that differ.
format:
	@scripts/format.sh --fix

clean:
	rm -rf $(BUILD) build-asan build-tsan
