# gpuscope: `make demo` runs the main job, `make test` the whole test suite.
# Both install missing Debian packages first (scripts/setup.sh).
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all setup build demo test sanitize gpu-test bench fuzz clean

all: build

setup:
	@scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)

# CPU tests always run; the GPU test skips with a message where there is no GPU.
test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The sanitizer builds CI runs after `test`: ASan+UBSan (build-asan) and TSan (build-tsan), see
# scripts/sanitize.sh and docs/testing.md.
sanitize: setup
	@JOBS=$(JOBS) scripts/sanitize.sh

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

clean:
	rm -rf $(BUILD) build-asan build-tsan
