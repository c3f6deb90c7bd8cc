#!/usr/bin/env bash
# The sanitizer stages of CI (.ci/run after `make test`; `make sanitize`; docs/testing.md):
#   asan  build-asan/: the CLI, the libraries and the CPU tests built with AddressSanitizer (and
#         LeakSanitizer) + UndefinedBehaviorSanitizer; ctest without the browser and GPU tests
#   tsan  build-tsan/: the capture library's tests (writer thread, periodic flusher, buffer pool,
#         GPM sampler, the injection library end to end) built with ThreadSanitizer
# `scripts/sanitize.sh asan` runs one stage. A finding aborts its process (-fno-sanitize-recover).
# The reports also go to BUILD/sanitizer-logs/, which must stay empty: a finding in a child process
# (the CLI run by a test) cannot then hide behind an exit status the test happens to expect.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(asan tsan)
suppressions=$PWD/scripts/sanitizers

# ccache (scripts/setup.sh installs it), as in the Makefile: paths relative to the checkout, and the
# sloppiness that lets it cache objects built with the precompiled headers.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}

# configure DIR SANITIZERS: -O1 keeps the build and the tests fast enough for CI; -g1 gives the
# reports file:line; NDEBUG as in the normal build, so both test the same code. GPUSCOPE_WERROR=ON
# (CI) makes warnings errors here too.
configure() {
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$1" -G Ninja "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DGPUSCOPE_SANITIZE="$2" \
        -DGPUSCOPE_WERROR="${GPUSCOPE_WERROR:-OFF}" \
        -DGPUSCOPE_BUILD_BENCH=OFF -DGPUSCOPE_BUILD_SAMPLES=OFF ${GPUSCOPE_SHARED_DIR:+-DGPUSCOPE_SHARED_DIR="$GPUSCOPE_SHARED_DIR"} >/dev/null
}

# check_logs DIR: fails, printing them, if the sanitizers wrote any report. The one note that is no
# finding: LeakSanitizer in a child fork()ed by a multi-threaded process says it could not suspend
# the parent's threads (they do not exist in the child) even when it finds no leak.
check_logs() {
  local note='^(==[0-9]+==Running thread [0-9]+ was not suspended\. False leaks are possible\.)?$' found=0 log
  for log in "$1"/sanitizer-logs/*; do
    [ -e "$log" ] || continue
    grep -qvE "$note" "$log" || continue
    echo "sanitize: finding in $log:"
    cat "$log"
    found=1
  done
  return $found
}

# fresh_logs DIR: an empty report folder, exported as every sanitizer's log_path.
fresh_logs() {
  rm -rf "$1/sanitizer-logs" && mkdir -p "$1/sanitizer-logs"
  local common="halt_on_error=1:log_path=$PWD/$1/sanitizer-logs/report"
  export ASAN_OPTIONS="$common:detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1"
  export UBSAN_OPTIONS="$common:print_stacktrace=1:suppressions=$suppressions/ubsan.supp"
  export LSAN_OPTIONS="suppressions=$suppressions/lsan.supp:print_suppressions=0"
  export TSAN_OPTIONS="$common:second_deadlock_stack=1:suppressions=$suppressions/tsan.supp"
}

for stage in "${stages[@]}"; do
  start=$SECONDS
  case $stage in
    asan)
      configure build-asan address,undefined
      # Only what its ctest runs: the CLI (with the libraries it loads), the synthetic-capture tool
      # and the test programs; not the overhead-floor injector, the seed writer or the CUPTI host
      # API's test program (left out below). A test program missing here fails as *_NOT_BUILT.
      cmake --build build-asan -j "$jobs" --target gpuscope gpuscope_synth gpuscope_unit_tests gpuscope_synth_tests \
        gpuscope_capture_tests gpuscope_fault_matrix_tests gpuscope_fuzz_replays
      fresh_logs build-asan
      # Left out (docs/testing.md): the browser tests (their pages come from the HTML code the unit
      # tests run here; the rest is JavaScript in chromium), the GPU tests (no GPU in CI), and the
      # tests of CUPTI's host metric API (MetricsHostTest, CliMetrics, and so the program of the
      # former is not built): libcupti dlopens libnvperf_host.so with RTLD_DEEPBIND, which ASan
      # refuses, aborting the process.
      status=0
      (cd build-asan && ctest --output-on-failure -j "$jobs" -LE 'browser|gpu' \
         -E '^(MetricsHostTest|CliMetrics)\.|^gpuscope_metrics_host_tests_NOT_BUILT$') || status=$?
      check_logs build-asan || status=1
      ;;
    tsan)
      configure build-tsan thread
      cmake --build build-tsan -j "$jobs" --target gpuscope_capture_tests
      fresh_logs build-tsan
      status=0
      (cd build-tsan && ctest --output-on-failure -j "$jobs" -L capture) || status=$?
      check_logs build-tsan || status=1
      ;;
    *) echo "sanitize: unknown stage '$stage' (asan, tsan)" >&2; exit 2 ;;
  esac
  echo "sanitize: $stage $( ((status == 0)) && echo passed || echo FAILED) in $((SECONDS - start)) s"
  ((status == 0)) || exit 1
done
