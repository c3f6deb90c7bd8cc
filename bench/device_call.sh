#!/usr/bin/env bash
# One device call of the diagnosis benchmark and the capture-cost benchmark, on a GPU host with a
# carried build (BUILD holds gpuscope and its libraries). Everything lands in OUT as at most 8
# files (the device tool's limit): logs and scored tables as text, reports and captures in tars.
#
#   bench/device_call.sh BUILD OUT PART...
# PART: diag1a, diag1b (the one-GPU workloads in two halves), diag2 (the two-GPU workloads),
#       cost (bench/pytorch_overhead.sh, pinned to CPUs 4-7: the add loop in its default modes,
#       gpuscope against torch.profiler; mm with and without driver launches; the 1M launch
#       storm), cost_parts (the add loop under the overhead floor with kernel tracing alone,
#       then one more activity kind or our own launch records at a time), cost_split (the add
#       loop: gpuscope's default against the floor with its kinds and callbacks, with and without
#       the six optional kinds; torch.profiler's modes; torch's CPU-side op records alone and under
#       gpuscope; then a short traced run with torch's CPU trace kept, in kineto_cpu.tgz),
#       cost_observer (the add loop: op names from a RecordFunction observer's floor, alone and
#       under gpuscope, against --pytorch=ops and torch.profiler), storm_split (the 1M storm, the
#       same split), cost_callbacks and storm_callbacks (the add
#       loop and the storm: kernel, copy and memset records alone, then with our own launch
#       callbacks on the runtime's, the driver's or both launch functions), import (a 1M-launch
#       capture with its spools kept, then three imports of them timed, in import.txt), gpu_tests
#       (tests/gpu/run_gpu_tests.sh: its summary in gpu_tests.txt, its logs in gpu_logs.tgz; BUILD
#       needs the samples), pack (score and pack OUT/diag into reports.tgz and captures.tar; give
#       it last)
# Environment: REPS (untraced repetitions, default 3), DIAG_ARGS (more run.sh options, e.g.
# --no-profile, --profile-planted-only), ONLY1 (the one-GPU workloads of diag1; default all).
set -u
BUILD=$1 OUT=$2; shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
REPS=${REPS:-3}
DIAG_ARGS=${DIAG_ARGS:-}  # e.g. --no-profile (times only) or --reps 0 (profiles only)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpus.txt"
# The floor modes the cost_* and storm_* parts compare gpuscope with (pytorch_overhead.sh).
floor=floor:CONCURRENT_KERNEL+MEMCPY+MEMSET six=+MEMCPY2+MEMORY2+MARKER+OVERHEAD+DEVICE+STREAM
callbacks=:runtime_launches+driver_launches
first_half=compiled,gpt_lm,cnn,decode_kv,dataloader_bound
second_half=host_syncs,fp32_gemm,unfused_optimizer,pageable_input,well_tuned
for part in "$@"; do
  case $part in
    diag1) "$HERE/diagnosis/run.sh" "$BUILD" "$OUT/diag" --gpus 1 --reps "$REPS" ${ONLY1:+--only $ONLY1} $DIAG_ARGS ;;
    diag1a) "$HERE/diagnosis/run.sh" "$BUILD" "$OUT/diag" --gpus 1 --reps "$REPS" --only $first_half $DIAG_ARGS ;;
    diag1b) "$HERE/diagnosis/run.sh" "$BUILD" "$OUT/diag" --gpus 1 --reps "$REPS" --only $second_half $DIAG_ARGS ;;
    diag2) "$HERE/diagnosis/run.sh" "$BUILD" "$OUT/diag" --gpus 2 --reps "$REPS" $DIAG_ARGS ;;
    cost)
      "$HERE/pytorch_overhead.sh" "$BUILD" --reps 7 --op add --csv "$OUT/cost_add.csv" >>"$OUT/cost.md"
      "$HERE/pytorch_overhead.sh" "$BUILD" --reps 7 --op mm --modes untraced,gpuscope,api_full,no_driver_launches,torch_cuda \
        --csv "$OUT/cost_mm.csv" >>"$OUT/cost.md"
      "$HERE/pytorch_overhead.sh" "$BUILD" --reps 7 --op storm --modes untraced,gpuscope,api_full \
        --csv "$OUT/cost_storm.csv" >>"$OUT/cost.md" ;;
    cost_split)
      "$HERE/pytorch_overhead.sh" "$BUILD" --reps 7 --op add --csv "$OUT/cost_split.csv" --modes \
        untraced,gpuscope,$floor$callbacks,$floor$six$callbacks,torch_cuda,pytorch_ops,torch_cpu_cuda,torch_cpu,gpuscope_torch_cpu \
        >>"$OUT/cost.md"
      mkdir -p "$OUT/kineto_cpu"
      "$BUILD/gpuscope" profile -f -o "$OUT/kineto_cpu/traced" --format json -- python3 "$HERE/../samples/pytorch/tiny_ops.py" \
        --ops 2000 --torch-profiler cpu --torch-trace "$OUT/kineto_cpu/torch_cpu.json" >"$OUT/kineto_cpu/stdout.txt" \
        2>"$OUT/kineto_cpu/report.json"
      (cd "$OUT" && tar czf kineto_cpu.tgz kineto_cpu && rm -rf kineto_cpu) ;;
    cost_observer)
      # Op names from a RecordFunction observer (its floor) against emit_nvtx and torch.profiler.
      "$HERE/pytorch_overhead.sh" "$BUILD" --reps 7 --op add --csv "$OUT/cost_observer.csv" --modes \
        untraced,gpuscope,pytorch_ops,observer,gpuscope_observer,torch_cpu_cuda >>"$OUT/cost.md" ;;
    storm_split)
      "$HERE/pytorch_overhead.sh" "$BUILD" --reps 7 --op storm --csv "$OUT/storm_split.csv" --modes \
        untraced,gpuscope,$floor$callbacks,$floor$six$callbacks >>"$OUT/cost.md" ;;
    cost_callbacks | storm_callbacks)
      op=add modes=untraced,gpuscope,$floor,$floor:runtime_launches,$floor:driver_launches,$floor$callbacks,torch_cuda
      [ "$part" = storm_callbacks ] && op=storm modes=untraced,gpuscope,$floor,$floor$callbacks
      "$HERE/pytorch_overhead.sh" "$BUILD" --reps 7 --op $op --csv "$OUT/$part.csv" --modes "$modes" >>"$OUT/cost.md" ;;
    import)
      dir=$(mktemp -d)
      timed() {  # LABEL CMD...: wall seconds and peak RSS (GNU time where the host has it)
        local label=$1; shift
        if [ -x /usr/bin/time ]; then /usr/bin/time -f "$label: %e s, peak %M KiB" "$@"
        else local TIMEFORMAT="$label: %R s"; time "$@"; fi
      }
      timed profile "$BUILD/gpuscope" profile --no-report --keep-spools -o "$dir/storm" \
        -- "$BUILD/samples/launch_storm" --launches 1000000 >>"$OUT/import.txt" 2>&1
      ls -l "$dir" >>"$OUT/import.txt"
      for i in 1 2 3; do
        timed "import $i" "$BUILD/gpuscope" import -f -o "$dir/again" "$dir"/storm.*.spool \
          >>"$OUT/import.txt" 2>&1
      done
      rm -rf "$dir"
      cat "$OUT/import.txt" ;;
    gpu_tests)
      "$HERE/../tests/gpu/run_gpu_tests.sh" "$BUILD" "$OUT/gpu_logs" >"$OUT/gpu_tests.txt" 2>&1
      (cd "$OUT" && tar czf gpu_logs.tgz gpu_logs && rm -rf gpu_logs)
      grep -E '^FAIL|passed' "$OUT/gpu_tests.txt" ;;
    cost_parts)
      # Kernel tracing alone, then one more kind (or our own launch records) at a time.
      base=CONCURRENT_KERNEL+MEMCPY+MEMSET modes=untraced,gpuscope,api_full,torch_cuda,floor:$base
      for extra in RUNTIME RUNTIME_LAUNCHES DRIVER MEMCPY2 MEMORY2 SYNCHRONIZATION MARKER OVERHEAD DEVICE STREAM; do
        modes+=,floor:$base+$extra
      done
      modes+=,floor:$base:runtime_launches+driver_launches
      "$HERE/pytorch_overhead.sh" "$BUILD" --reps 5 --op add --modes "$modes" --csv "$OUT/cost_parts.csv" \
        >>"$OUT/cost.md" ;;
  esac 2>&1 | tee -a "$OUT/log.txt" | tail -40
done
# Reports and scores come back; captures only while they fit (the tool takes 16 MiB a file).
if [ "${*: -1}" = pack ] && [ -d "$OUT/diag" ]; then
  python3 "$HERE/diagnosis/score.py" "$OUT/diag" --card "$(head -1 "$OUT/gpus.txt")" >"$OUT/table.md" 2>&1
  (cd "$OUT/diag" && tar czf "$OUT/reports.tgz" *.json *.md timings.jsonl logs 2>/dev/null)
  (cd "$OUT/diag" && xz -T0 -6 *.gpuscope 2>/dev/null
   total=0 kept=()
   for f in $(ls -S -r *.gpuscope.xz 2>/dev/null); do
     size=$(stat -c %s "$f"); [ $((total + size)) -lt 15500000 ] || continue
     total=$((total + size)); kept+=("$f")
   done
   [ ${#kept[@]} -gt 0 ] && tar cf "$OUT/captures.tar" "${kept[@]}")
  rm -rf "$OUT/diag"
fi
cat "$OUT/table.md" 2>/dev/null | tail -30
