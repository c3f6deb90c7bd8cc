#!/usr/bin/env bash
# Runs a build's tests with ctest: `scripts/run_tests.sh BUILD [CTEST ARGS...]` (`make test` runs it
# on BUILD). In a sanitizer build (GPUSCOPE_SANITIZE set when it was configured) the runtime options
# send every report to BUILD/sanitizer-logs/, and the run fails when a report is there, even if
# every test passed: many tests run the CLI as a child process and check its exit status, and a
# finding that exits with the status the test expects (1, from `check`) would otherwise pass.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/run_tests.sh BUILD [CTEST ARGS...]}
shift
jobs=${JOBS:-$(nproc)}
# A test without its own TIMEOUT property stops after 10 minutes: a hung test fails alone instead of
# holding the run (the slowest unit test takes under a minute under ASan on 2 cores).
ctest_args=(--test-dir "$build" --output-on-failure -j "$jobs" --timeout 600)
sanitizers=$(sed -n 's/^GPUSCOPE_SANITIZE:STRING=//p' "$build/CMakeCache.txt")
[ -z "$sanitizers" ] && exec ctest "${ctest_args[@]}" "$@"

suppressions=$PWD/scripts/sanitizers
rm -rf "$build/sanitizer-logs" && mkdir -p "$build/sanitizer-logs"
common="halt_on_error=1:log_path=$PWD/$build/sanitizer-logs/report"
export ASAN_OPTIONS="$common:detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="$common:print_stacktrace=1:suppressions=$suppressions/ubsan.supp"
export LSAN_OPTIONS="suppressions=$suppressions/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="$common:second_deadlock_stack=1:suppressions=$suppressions/tsan.supp"

status=0
ctest "${ctest_args[@]}" "$@" || status=$?
# The one note that is no finding: LeakSanitizer in a child fork()ed by a multi-threaded process says
# it could not suspend the parent's threads (they do not exist in the child) even when it finds no leak.
note='^(==[0-9]+==Running thread [0-9]+ was not suspended\. False leaks are possible\.)?$'
for log in "$build"/sanitizer-logs/*; do
  [ -e "$log" ] || continue
  grep -qvE "$note" "$log" || continue
  echo "run_tests: $sanitizers finding in $log:"
  cat "$log"
  status=1
done
exit $status
