#!/usr/bin/env bash
# Operating characteristics of `gpuscope diff` on a real GPU:
#
#   A/A   PAIRS pairs of captures of the same program; every judged item (kernel, copy, API
#         call, NVTX range with >= 3 instances on both sides) should be "no significant
#         change": target >= 95 % of items over all pairs (the false-positive rate).
#   power PAIRS trials of the same program with the planted 5 % kernel slowdown
#         (bsr_spmm --slow-kernel-pct 5) against the first capture of an A/A pair; the
#         kernel should be judged significantly slower: target >= 95 % of trials.
#         Judged by `gpuscope check --baseline` with a kernel rule, so the gate path is
#         exercised too.
#
#   tests/gpu/check_diff.sh BUILD_DIR [LOG_DIR]
#
# Env: PAIRS (default 20), ITERS (kernel launches per capture, default 30), SIZE (M=N=K,
# default 2048, one wave on an H100), SLOW_PCT (default 5), BENCH_RUNS (default 0: each side
# is one capture, compared by instances; N >= 4: each side is `gpuscope bench -n N`, compared
# by whole runs, the sounder comparison: runs differ a little everywhere at once).
# 3 * PAIRS captures of about 1-2 s each: about 2 minutes on an H100 with the defaults;
# BENCH_RUNS=5 takes about 5 times as long (keep PAIRS * BENCH_RUNS <= 100 for ~8 minutes).
# Last, baseline bsr_spmm vs --persistent --pinned: the big copies must come out faster.
# Exit 0 when both targets are met, 1 when not, 77 without a GPU (CTest: skipped).
set -u
build=$(cd "${1:?usage: check_diff.sh BUILD_DIR [LOG_DIR]}" && pwd)
logs=${2:-$(mktemp -d)}
mkdir -p "$logs"
gpuscope="$build/gpuscope"
sample="$build/samples/bsr_spmm"
pairs=${PAIRS:-20} iters=${ITERS:-30} size=${SIZE:-2048} slow=${SLOW_PCT:-5} bench_runs=${BENCH_RUNS:-0}

. "$(dirname "$0")/lib.sh"
require_gpu_build "$build"

work=$(mktemp -d)
cd "$work" || exit 1
echo "GPU: $(gpu_name)"
mode="one capture per side"
[ "$bench_runs" -gt 0 ] && mode="bench of $bench_runs runs per side"
echo "bsr_spmm --m $size --n $size --k $size --iters $iters --persistent --pinned; $pairs pairs; $mode; logs: $logs"
started=$(date +%s)

capture() {  # capture NAME [sample args]
  local name=$1
  shift
  local how=(profile -f --no-report -o "$name")
  [ "$bench_runs" -gt 0 ] && how=(bench -n "$bench_runs" --warmup 0 -f -o "$name")
  if ! "$gpuscope" "${how[@]}" -- "$sample" --m "$size" --n "$size" --k "$size" \
      --iters "$iters" "$@" >"$logs/$name.out" 2>"$logs/$name.err"; then
    echo "ERROR: capture $name failed (see $logs/$name.err)"
    exit 1
  fi
}

# The kernel rule: the planted slowdown must be a significant regression (any size > 0 %).
cat >kernel_gate.toml <<'EOF'
[[baseline]]
id = "planted-slowdown"
kind = "kernel"
match = "*bsr_spmm_kernel*"
max_slower_pct = 0
EOF

count() { awk -v label="$1" 'index($0, label) == 1 { print $NF; exit }' "$2"; }

judged_total=0 nochange_total=0 detected=0
for i in $(seq 1 "$pairs"); do
  capture "a$i" --persistent --pinned
  capture "b$i" --persistent --pinned
  capture "s$i" --persistent --pinned --slow-kernel-pct "$slow"
  "$gpuscope" diff "a$i.gpuscope" "b$i.gpuscope" >"$logs/aa$i.txt" 2>>"$logs/diff.err"
  faster=$(count "Faster " "$logs/aa$i.txt") slower=$(count "Slower " "$logs/aa$i.txt")
  same=$(count "No significant change " "$logs/aa$i.txt")
  judged=$((faster + slower + same))
  judged_total=$((judged_total + judged)) nochange_total=$((nochange_total + same))
  "$gpuscope" check "s$i.gpuscope" --baseline "a$i.gpuscope" --rules kernel_gate.toml >"$logs/slow$i.txt" 2>&1
  gate=$?
  [ $gate -eq 1 ] && detected=$((detected + 1))
  [ $gate -eq 2 ] && { echo "ERROR: check failed on trial $i:"; cat "$logs/slow$i.txt"; exit 1; }
  change=$(grep -o '[+-][0-9.]*% \[[^]]*\]' "$logs/slow$i.txt" | head -1)
  echo "pair $i: A/A $same of $judged items no significant change ($faster faster, $slower slower);" \
       "slowdown trial: kernel $change -> $([ $gate -eq 1 ] && echo detected || echo missed)"
  [ $((faster + slower)) -gt 0 ] && grep -E ' (faster|slower)( |$)' "$logs/aa$i.txt" | sed 's/^/    false positive: /'
done

# The fix of the sample: baseline (per-iteration cudaMalloc, pageable copies) vs --persistent --pinned.
capture fix_base
capture fix_new --persistent --pinned
"$gpuscope" diff fix_base.gpuscope fix_new.gpuscope >"$logs/fix.txt" 2>>"$logs/diff.err"
fix_ok=1
for direction in DtoH HtoD; do
  row=$(grep -E "^$direction \\[[0-9]+ MiB" "$logs/fix.txt" | head -1)  # the largest copies come first
  echo "fix: $row"
  case "$row" in *" faster "*) ;; *) fix_ok=0 ;; esac
done

rate() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.1f", 100 * a / b }'; }
aa_rate=$(rate $nochange_total $judged_total)
power=$(rate $detected "$pairs")
echo
echo "A/A: $nochange_total of $judged_total judged items over $pairs pairs had no significant change: $aa_rate % (target >= 95 %)"
echo "planted ${slow} % kernel slowdown: detected in $detected of $pairs trials: $power % (target >= 95 %)"
echo "time: $(( $(date +%s) - started )) s"
echo "fix (--persistent --pinned): large copies $([ $fix_ok = 1 ] && echo "significantly faster" || echo "NOT judged faster")"
ok=$(awk -v a="$aa_rate" -v p="$power" -v f="$fix_ok" 'BEGIN { print (a != "n/a" && a >= 95 && p >= 95 && f == 1) ? 1 : 0 }')
[ "$ok" = 1 ] && { echo "PASS"; exit 0; }
echo "FAIL"
exit 1
