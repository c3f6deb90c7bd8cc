#!/usr/bin/env bash
# The sanitizer builds (`make sanitize`; docs/testing.md), each in its own folder:
#   asan  build-asan/: everything `make test` builds and runs, with AddressSanitizer (and
#         LeakSanitizer) + UndefinedBehaviorSanitizer, every check: `make test
#         SANITIZE=address,undefined` (CI runs UBSan's arithmetic and bounds checks only: .ci/run)
#   tsan  build-tsan/: the capture library's tests (writer thread, periodic flusher, buffer pool,
#         GPM sampler, the injection library end to end) built with ThreadSanitizer
# `scripts/sanitize.sh asan` runs one stage. A finding aborts its process (-fno-sanitize-recover)
# and fails the stage (scripts/run_tests.sh checks the reports).
set -euo pipefail
cd "$(dirname "$0")/.."
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(asan tsan)
for stage in "${stages[@]}"; do
  start=$SECONDS
  status=0
  case $stage in
    asan) make --no-print-directory test BUILD=build-asan SANITIZE=address,undefined || status=$? ;;
    tsan)
      make --no-print-directory build BUILD=build-tsan SANITIZE=thread TARGETS=gpuscope_capture_tests &&
        scripts/run_tests.sh build-tsan -L capture || status=$?
      ;;
    *) echo "sanitize: unknown stage '$stage' (asan, tsan)" >&2; exit 2 ;;
  esac
  echo "sanitize: $stage $( ((status == 0)) && echo passed || echo FAILED) in $((SECONDS - start)) s"
  ((status == 0)) || exit 1
done
