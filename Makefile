# gpuscope: `make demo` runs the main job, `make test` the whole test suite.
# Both install missing Debian packages first (scripts/setup.sh).
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all setup build demo test sanitize gpu-test bench clean

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

clean:
	rm -rf $(BUILD) build-asan build-tsan
