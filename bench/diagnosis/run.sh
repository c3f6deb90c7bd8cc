#!/usr/bin/env bash
# The diagnosis benchmark's runner. For each workload of workloads.json that needs the chosen GPU
# count: the planted program and its fixed twin untraced, interleaved, REPS times each (their
# JSON timing lines go to OUTDIR/timings.jsonl), then each profiled once by gpuscope and reported
# as JSON (OUTDIR/NAME.report.json, OUTDIR/NAME.fixed.report.json). Then score.py OUTDIR.
#
#   bench/diagnosis/run.sh BUILD OUTDIR [--only NAME,...] [--reps N] [--gpus 1|2]
#                                       [--pytorch-level none|ops|shapes|modules] [--no-profile]
#                                       [--profile-planted-only]
#
# --reps 0 profiles only; --no-profile times only (untraced times do not depend on the build, so
# they can be measured once and the profiles made again with a newer gpuscope).
#
# BUILD is the build directory holding the gpuscope CLI. --gpus defaults to 1 on a one-GPU
# machine and to 2 on a larger one (the 2-GPU part: the torchrun workloads). Every run has a
# timeout, so one hang costs at most that run. The timeouts run in the foreground (the caller's
# process group), so a timeout put around this script stops the run in progress too: one left
# running would share the pinned CPUs with every later run.
set -u
usage() { sed -n '7,8p' "$0" >&2; exit 2; }
[ $# -ge 2 ] || usage
BUILD=$1 OUTDIR=$2
shift 2
ONLY="" REPS=3 GPUS="" LEVEL=none PROFILE=1 PROFILE_FIXED=1
while [ $# -gt 0 ]; do
  case $1 in
    --only) ONLY=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --gpus) GPUS=$2; shift 2 ;;
    --pytorch-level) LEVEL=$2; shift 2 ;;
    --no-profile) PROFILE=0; shift ;;
    --profile-planted-only) PROFILE_FIXED=0; shift ;;
    *) usage ;;
  esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
GPUSCOPE=$(cd "$BUILD" && pwd)/gpuscope
[ "$PROFILE" = 0 ] || [ -x "$GPUSCOPE" ] || { echo "no gpuscope CLI at $GPUSCOPE" >&2; exit 2; }
mkdir -p "$OUTDIR/logs"
OUTDIR=$(cd "$OUTDIR" && pwd)
TIMINGS=$OUTDIR/timings.jsonl

if [ -z "$GPUS" ]; then
  count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  if [ "${count:-0}" -ge 2 ]; then GPUS=2; else GPUS=1; fi
fi
# Pin to 8 cores where taskset exists, so runs see the same CPUs (DataLoader workers included).
PIN=()
LIMIT=(timeout --foreground -k 10)  # then SIGKILL 10 s after the SIGTERM
command -v taskset >/dev/null && PIN=(taskset -c 0-7)
PYTORCH_FLAG=()
[ "$LEVEL" != none ] && PYTORCH_FLAG=("--pytorch=$LEVEL")
# NVLink SHARP (multicast) is off on the lent machines; NCCL must not try it.
export NCCL_NVLS_ENABLE=0
export PYTHONUNBUFFERED=1

# name <TAB> file <TAB> launcher <TAB> has_fixed <TAB> args, for this GPU count and --only.
WORKLOADS=$(python3 - "$HERE/workloads.json" "$GPUS" "$ONLY" <<'PY'
import json, sys
spec, gpus, only = sys.argv[1], int(sys.argv[2]), sys.argv[3]
wanted = set(filter(None, only.split(",")))
for w in json.load(open(spec))["workloads"]:
    if w["gpus"] == gpus and (not wanted or w["name"] in wanted):
        print("\t".join([w["name"], w["file"], w["launcher"], "1" if w["fixed"] else "0",
                         " ".join(w["args"])]))
PY
)
[ -n "$WORKLOADS" ] || { echo "no workload for --gpus $GPUS ${ONLY:+--only $ONLY}" >&2; exit 2; }

# The program's command line: launcher, file, its args.
program() {  # file launcher args...
  local file=$1 launcher=$2; shift 2
  if [ "$launcher" = torchrun ]; then
    echo torchrun --standalone --nproc-per-node 2 "$HERE/$file" "$@"
  else
    echo python3 "$HERE/$file" "$@"
  fi
}

# Appends the run's last JSON line (or an error line) to timings.jsonl with rep and traced.
record() {  # name variant rep traced rc stdout_log
  python3 - "$@" >>"$TIMINGS" <<'PY'
import json, sys
name, variant, rep, traced, rc, log = sys.argv[1:]
lines = [l for l in open(log, errors="replace") if l.startswith('{"workload"')]
try:
    row = json.loads(lines[-1])
except (IndexError, ValueError):
    row = {"workload": name, "variant": variant, "error": "exit %s, no JSON line (%s)" % (rc, log)}
row.update(rep=int(rep), traced=traced == "1", rc=int(rc))
print(json.dumps(row))
PY
}

start=$(date +%s)
echo "gpuscope diagnosis benchmark: $GPUS GPU(s), $REPS reps, --pytorch=$LEVEL, out $OUTDIR"
while IFS=$'\t' read -r name file launcher has_fixed args; do
  read -r -a cmd <<<"$(program "$file" "$launcher" $args)"
  variants=(planted)
  [ "$has_fixed" = 1 ] && variants+=(fixed)
  for rep in $(seq 1 "$REPS"); do
    for v in "${variants[@]}"; do
      flag=(); [ "$v" = fixed ] && flag=(--fixed)
      log=$OUTDIR/logs/$name.$v.rep$rep
      "${LIMIT[@]}" 120 "${PIN[@]}" "${cmd[@]}" "${flag[@]}" >"$log.out" 2>"$log.err"
      rc=$?
      record "$name" "$v" "$rep" 0 "$rc" "$log.out"
      echo "[$(( $(date +%s) - start ))s] $name $v rep $rep: exit $rc, $(tail -1 "$TIMINGS" | cut -c1-160)"
    done
  done
  [ "$PROFILE" = 1 ] || continue
  [ "$PROFILE_FIXED" = 1 ] || variants=(planted)
  for v in "${variants[@]}"; do
    flag=(); suffix=""
    [ "$v" = fixed ] && { flag=(--fixed); suffix=.fixed; }
    log=$OUTDIR/logs/$name.$v.traced
    "${LIMIT[@]}" 180 "${PIN[@]}" "$GPUSCOPE" profile "${PYTORCH_FLAG[@]}" --no-report --force \
      -o "$OUTDIR/$name$suffix" -- "${cmd[@]}" "${flag[@]}" >"$log.out" 2>"$log.err"
    rc=$?
    record "$name" "$v" 0 1 "$rc" "$log.out"
    if [ -f "$OUTDIR/$name$suffix.gpuscope" ]; then
      "${LIMIT[@]}" 120 "$GPUSCOPE" report "$OUTDIR/$name$suffix.gpuscope" --format json \
        -o "$OUTDIR/$name$suffix.report.json" 2>>"$log.err"
      "${LIMIT[@]}" 120 "$GPUSCOPE" report "$OUTDIR/$name$suffix.gpuscope" --format markdown \
        -o "$OUTDIR/$name$suffix.report.md" 2>>"$log.err"
    fi
    echo "[$(( $(date +%s) - start ))s] $name $v profiled: exit $rc"
  done
done <<<"$WORKLOADS"
echo "done in $(( $(date +%s) - start )) s; score: python3 $HERE/score.py $OUTDIR"
