#!/usr/bin/env bash
# GPU end-to-end tests: profile every sample on a real GPU and check the numbers
# in the capture against what the sample did. Exit 77 (CTest: skipped) without a GPU.
#
#   tests/gpu/run_gpu_tests.sh BUILD_DIR [LOG_DIR]
#
# Needs: BUILD_DIR/gpuscope, BUILD_DIR/libgpuscope_inject.so, BUILD_DIR/samples/*.
set -u
build=$(cd "${1:?usage: run_gpu_tests.sh BUILD_DIR [LOG_DIR]}" && pwd)
logs=${2:-$(mktemp -d)}
mkdir -p "$logs"
gpuscope="$build/gpuscope"
samples="$build/samples"
pytorch_samples=$(cd "$(dirname "$0")/../../samples/pytorch" && pwd)  # before any cd
diagnosis_programs=$(cd "$(dirname "$0")/../../bench/diagnosis" && pwd)

. "$(dirname "$0")/lib.sh"
require_gpu_build "$build"

passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
# expect NAME ACTUAL OP EXPECTED  (OP: -eq -ge -le -gt)
expect() {
  if [ -n "$2" ] && [ "$2" "$3" "$4" ] 2>/dev/null; then pass "$1 ($2 $3 $4)"; else fail "$1" "got '$2', want $3 $4"; fi
}
q() { "$gpuscope" query "$1" "$2" 2>>"$logs/query.err"; }

work=$(mktemp -d)
cd "$work" || exit 1
echo "GPU: $(gpu_name)"
echo "logs: $logs"

# 1. launch_storm: one kernel record per launch, nothing dropped.
launches=20000
"$gpuscope" profile -o storm -- "$samples/launch_storm" --launches $launches >"$logs/storm.out" 2>"$logs/storm.err"
expect "launch_storm exit code" $? -eq 0
expect "launch_storm kernels == launches" "$(q storm.gpuscope "SELECT COUNT(*) FROM kernels_named WHERE name LIKE '%tiny%'")" -eq $launches
expect "launch_storm launch API calls" "$(q storm.gpuscope "SELECT COUNT(*) FROM api_calls_named WHERE name LIKE 'cudaLaunchKernel%'")" -ge $launches
expect "launch_storm no dropped records" "$(q storm.gpuscope "SELECT COALESCE(SUM(count),0) FROM data_loss WHERE what LIKE '%dropped%'")" -eq 0
expect "launch_storm clean shutdown" "$(q storm.gpuscope "SELECT MIN(clean_shutdown) FROM processes")" -eq 1
expect "device recorded" "$(q storm.gpuscope "SELECT COUNT(*) FROM devices WHERE sm_count > 0")" -ge 1

# Several streams, and driver API tracing on request.
"$gpuscope" profile -o storm4 --driver-api -- "$samples/launch_storm" --launches 4000 --streams 4 >"$logs/storm4.out" 2>"$logs/storm4.err"
expect "launch_storm --streams 4 exit code" $? -eq 0
expect "launch_storm 4 streams used" "$(q storm4.gpuscope "SELECT COUNT(DISTINCT stream) FROM kernels_named WHERE name LIKE '%tiny%'")" -eq 4
expect "launch_storm 4 streams kernels" "$(q storm4.gpuscope "SELECT COUNT(*) FROM kernels_named WHERE name LIKE '%tiny%'")" -eq 4000
expect "launch_storm's 4 streams recorded as non-blocking" "$(q storm4.gpuscope "SELECT COUNT(*) FROM streams WHERE flag = 'non_blocking' AND stream IN (SELECT stream FROM kernels_named WHERE name LIKE '%tiny%')")" -eq 4
expect "--driver-api records driver calls" "$(q storm4.gpuscope "SELECT COUNT(*) FROM api_calls WHERE domain = 'driver'")" -ge 4000

# 2. bsr_spmm baseline: per-iteration allocations and pageable copies, as in the seed.
iters=3 m=2048
"$gpuscope" profile -o base -- "$samples/bsr_spmm" --m $m --n $m --k $m --iters $iters >"$logs/base.out" 2>"$logs/base.err"
expect "bsr_spmm baseline exit code (self-verified)" $? -eq 0
expect "bsr_spmm kernels == iters" "$(q base.gpuscope "SELECT COUNT(*) FROM kernels_named WHERE name LIKE '%bsr_spmm%'")" -eq $iters
expect "bsr_spmm baseline cudaMalloc per iteration" "$(q base.gpuscope "SELECT COUNT(*) FROM api_calls_named WHERE name = 'cudaMalloc'")" -ge $((iters * 5))
c_bytes=$((m * m * 4))
expect "bsr_spmm DtoH bytes == iters * C" "$(q base.gpuscope "SELECT SUM(bytes) FROM memcpys WHERE copy_kind = 'DtoH'")" -eq $((iters * c_bytes))
expect "bsr_spmm baseline copies are pageable" "$(q base.gpuscope "SELECT COUNT(*) FROM memcpys WHERE copy_kind IN ('HtoD','DtoH') AND 'pinned' IN (src_kind, dst_kind)")" -eq 0
expect "bsr_spmm NVTX iterations" "$(q base.gpuscope "SELECT COUNT(*) FROM nvtx_ranges_named WHERE name = 'iteration'")" -eq $iters
expect "bsr_spmm allocations recorded" "$(q base.gpuscope "SELECT COUNT(*) FROM memory_events WHERE op = 'alloc' AND memory_kind = 'device'")" -ge $((iters * 5))

# 3. bsr_spmm --persistent --pinned: allocations once, pinned copies.
"$gpuscope" profile -o fixed -- "$samples/bsr_spmm" --m $m --n $m --k $m --iters $iters --persistent --pinned >"$logs/fixed.out" 2>"$logs/fixed.err"
expect "bsr_spmm fixed exit code" $? -eq 0
expect "bsr_spmm fixed cudaMalloc once" "$(q fixed.gpuscope "SELECT COUNT(*) FROM api_calls_named WHERE name = 'cudaMalloc'")" -le 6
expect "bsr_spmm fixed copies pinned" "$(q fixed.gpuscope "SELECT COUNT(*) FROM memcpys WHERE copy_kind IN ('HtoD','DtoH') AND 'pageable' IN (src_kind, dst_kind)")" -eq 0
expect "bsr_spmm fixed DtoH bytes" "$(q fixed.gpuscope "SELECT SUM(bytes) FROM memcpys WHERE copy_kind = 'DtoH'")" -eq $((iters * c_bytes))

# 4. Exit status passes through; a crash keeps what was captured up to ~1 s before it.
"$gpuscope" profile -o exit3 -- "$samples/crash" --mode exit3 >"$logs/exit3.out" 2>"$logs/exit3.err"
expect "exit code passthrough" $? -eq 3
"$gpuscope" profile -o segv -- "$samples/crash" --mode segv --after-ms 1500 >"$logs/segv.out" 2>"$logs/segv.err"
expect "segfault status passthrough (128+SIGSEGV)" $? -eq 139
launched=$(sed -n 's/.*launched=\([0-9]*\).*/\1/p' "$logs/segv.out" | tail -1)
expect "segv capture marked truncated" "$(q segv.gpuscope "SELECT COUNT(*) FROM processes WHERE clean_shutdown = 0")" -eq 1
expect "segv kernels before the crash kept (>= half of $launched)" "$(q segv.gpuscope "SELECT COUNT(*) * 2 FROM kernels")" -ge "${launched:-1}"
"$gpuscope" profile -o abort -- "$samples/crash" --mode abort --after-ms 1500 >"$logs/abort.out" 2>"$logs/abort.err"
expect "abort status passthrough (128+SIGABRT)" $? -eq 134
expect "abort capture has kernels" "$(q abort.gpuscope "SELECT COUNT(*) FROM kernels")" -gt 0
expect "NVTX marks captured" "$(q abort.gpuscope "SELECT COUNT(*) FROM nvtx_marks")" -gt 0

# 4b. A GPU fault (an illegal address after 1,000 good kernels): the program's output and exit
# status are unchanged, the kernels that finished before it keep their times (flushed when a
# synchronization returns, sync_flush.h), the report names the fault, and records without times
# stay out of the capture.
"$samples/crash" --mode fault --kernels 1000 --step-us 1000 >"$logs/fault_plain.out" 2>&1
plain_rc=$?
"$gpuscope" profile -o fault -- "$samples/crash" --mode fault --kernels 1000 --step-us 1000 >"$logs/fault.out" 2>"$logs/fault.err"
expect "fault: exit status unchanged ($plain_rc)" $? -eq "$plain_rc"
expect "fault: output unchanged" "$(diff <(grep -v pid "$logs/fault_plain.out" | sed 's/elapsed_ms=.*//') <(grep -v pid "$logs/fault.out" | sed 's/elapsed_ms=.*//') | wc -l)" -eq 0
# At the default --sync-flush-ms 10, only kernels of the last 10 ms (about 10 at 1 ms a step) may lose their times.
expect "fault: kernels before it keep their times (>= 985 of 1000)" "$(q fault.gpuscope "SELECT COUNT(*) FROM kernels WHERE name_id IN (SELECT id FROM strings WHERE value LIKE 'crash_step_kernel%')")" -ge 985
expect "fault: no kernel without times in the capture" "$(q fault.gpuscope "SELECT COUNT(*) FROM kernels WHERE start_ns <= 0 OR end_ns < start_ns")" -eq 0
expect "fault: the records without times are counted" "$(q fault.gpuscope "SELECT COUNT(*) FROM data_loss WHERE what = 'invalid_times'")" -eq 1
"$gpuscope" report fault.gpuscope >"$logs/fault_report.txt" 2>&1
expect "fault: the report names it" "$(grep -c 'GPU fault *cudaDeviceSynchronize returned cudaErrorIllegalAddress' "$logs/fault_report.txt")" -eq 1
"$gpuscope" profile --sync-flush-ms 0 -o fault0 -- "$samples/crash" --mode fault --kernels 1000 --step-us 0 >"$logs/fault0.out" 2>"$logs/fault0.err"
expect "fault, --sync-flush-ms 0: exit status unchanged" $? -eq "$plain_rc"
expect "fault, --sync-flush-ms 0: every kernel before it keeps its times" "$(q fault0.gpuscope "SELECT COUNT(*) FROM kernels WHERE name_id IN (SELECT id FROM strings WHERE value LIKE 'crash_step_kernel%')")" -eq 1000

# 5. SIGKILL: the spool written so far is still readable.
"$gpuscope" profile -o killed -- "$samples/crash" --mode hang --after-ms 1500 >"$logs/killed.out" 2>"$logs/killed.err" &
profiler=$!
for _ in $(seq 1 100); do grep -q launched= "$logs/killed.out" 2>/dev/null && break; sleep 0.1; done
sleep 1.5
# Kill the program itself (gpuscope's direct child), not gpuscope.
kill -KILL "$(pgrep -P $profiler -f 'crash --mode hang' | head -1)"
wait $profiler
expect "SIGKILL status passthrough (128+9)" $? -eq 137
expect "SIGKILL capture has kernels" "$(q killed.gpuscope "SELECT COUNT(*) FROM kernels")" -gt 0
expect "SIGKILL capture marked truncated" "$(q killed.gpuscope "SELECT COUNT(*) FROM data_loss WHERE what = 'spool_truncated'")" -eq 1

# 6. Fail-open: no GPU visible -> the program behaves exactly as without gpuscope.
CUDA_VISIBLE_DEVICES= "$samples/launch_storm" --launches 10 >/dev/null 2>&1
plain=$?
CUDA_VISIBLE_DEVICES= "$gpuscope" profile -o nogpu -- "$samples/launch_storm" --launches 10 >"$logs/nogpu.out" 2>"$logs/nogpu.err"
expect "no-GPU exit status unchanged" $? -eq $plain
expect "no-GPU gpuscope explains" "$(grep -c 'gpuscope' "$logs/nogpu.err")" -ge 1

# 7. Child processes are captured, each with its pid.
"$gpuscope" profile -o spawn -- "$samples/spawn" --children 2 >"$logs/spawn.out" 2>"$logs/spawn.err"
expect "spawn exit code" $? -eq 0
expect "child processes captured" "$(q spawn.gpuscope "SELECT COUNT(DISTINCT pid) FROM kernels")" -eq 2
expect "child kernels" "$(q spawn.gpuscope "SELECT COUNT(*) FROM kernels")" -ge 2000

# 8. PyTorch (a python3 process with its own libcupti), if torch is installed.
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  "$gpuscope" profile -o torch -- python3 -c "
import torch
x = torch.randn(1024, 1024, device='cuda')
r = torch.cuda.nvtx.range_start('warm')
for _ in range(20):
    torch.cuda.nvtx.range_push('step')
    x = torch.nn.functional.relu(x @ x) / 1024
    torch.cuda.nvtx.range_pop()
torch.cuda.nvtx.range_push('outer')
torch.cuda.nvtx.range_end(r)  # not the innermost open range: start/end, not push/pop
torch.cuda.nvtx.range_pop()
torch.cuda.nvtx.mark('done')
torch.cuda.synchronize(); print('ok', float(x.sum()))" >"$logs/torch.out" 2>"$logs/torch.err"
  expect "torch exit code" $? -eq 0
  expect "torch kernels" "$(q torch.gpuscope "SELECT COUNT(*) FROM kernels")" -ge 40
  expect "torch NVTX push/pop ranges" "$(q torch.gpuscope "SELECT COUNT(*) FROM nvtx_ranges_named WHERE name = 'step' AND kind = 'push_pop'")" -eq 20
  expect "torch NVTX start/end range" "$(q torch.gpuscope "SELECT COUNT(*) FROM nvtx_ranges_named WHERE name = 'warm' AND kind = 'start_end'")" -eq 1
  expect "torch NVTX mark" "$(q torch.gpuscope "SELECT COUNT(*) FROM nvtx_marks")" -ge 1
else
  echo "SKIP torch: python3 with CUDA torch not available"
fi

# 9. torch.profiler in the same process also uses CUPTI: the program must still run
#    correctly; gpuscope loses what runs after torch.profiler takes CUPTI's records (the
#    preload library tells it when), and its data-quality section says so.
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  "$gpuscope" profile -o torchprof -- python3 -c "
import torch
from torch.profiler import profile, ProfilerActivity
x = torch.ones(256, 256, device='cuda')
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(10): x = x @ x / 256
torch.cuda.synchronize()
assert abs(float(x[0, 0]) - 1.0) < 1e-3
cuda = sum(e.count for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA)
print('ok', len(prof.key_averages()) > 0)
print('cuda_events', cuda)" >"$logs/torchprof.out" 2>"$logs/torchprof.err"
  expect "torch.profiler alongside: exit status" $? -eq 0
  expect "torch.profiler alongside: result intact" "$(grep -c '^ok' "$logs/torchprof.out")" -eq 1
  # The program's own profiler keeps its data: it saw the 10 matmuls' kernels on the GPU.
  expect "torch.profiler alongside: torch.profiler's own GPU events intact" "$(awk '/^cuda_events/ {print $2}' "$logs/torchprof.out")" -ge 10
  expect "torch.profiler alongside: takeover recorded as a loss" "$(q torchprof.gpuscope "SELECT COUNT(*) FROM data_loss WHERE what = 'cupti_taken_over'")" -eq 1
  expect "torch.profiler alongside: none of our buffers handed to Kineto" "$(grep -c 'unknown buffer' "$logs/torchprof.err")" -eq 0
  expect "torch.profiler alongside: records before the takeover kept" "$(q torchprof.gpuscope "SELECT COUNT(*) FROM api_calls")" -ge 1
  # The exit crash this used to cause was rare (about 1 run in 10): repeat the scenario.
  crashes=0
  for i in $(seq 1 20); do
    "$gpuscope" profile --no-report -o "torchprof_rep$i" -- python3 -c "
import torch
from torch.profiler import profile, ProfilerActivity
x = torch.ones(256, 256, device='cuda')
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(10): x = x @ x / 256
torch.cuda.synchronize()
print('ok', float(x[0, 0]))" >"$logs/torchprof_rep.out" 2>>"$logs/torchprof_rep.err" || crashes=$((crashes + 1))
  done
  expect "torch.profiler alongside: 20 more runs, none harmed" "$crashes" -eq 0
  # torch.profiler started before CUDA: its own client may register before or while the
  # capture starts; either way the program and its profiler keep everything, and the capture
  # says what it lost (a takeover) or why it stood aside.
  "$gpuscope" profile --no-report -o torchearly -- python3 -c "
import torch
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    x = torch.ones(256, 256, device='cuda')
    for _ in range(10): x = x @ x / 256
torch.cuda.synchronize()
assert abs(float(x[0, 0]) - 1.0) < 1e-3
print('cuda_events', sum(e.count for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA))" \
    >"$logs/torchearly.out" 2>"$logs/torchearly.err"
  expect "torch.profiler before CUDA: exit status" $? -eq 0
  expect "torch.profiler before CUDA: its own GPU events intact" "$(awk '/^cuda_events/ {print $2}' "$logs/torchearly.out")" -ge 10
  expect "torch.profiler before CUDA: the capture says what happened" "$(q torchearly.gpuscope "SELECT (SELECT COUNT(*) FROM data_loss WHERE what = 'cupti_taken_over') + (SELECT COUNT(*) FROM processes WHERE capture_status LIKE '%before CUDA started%')")" -eq 1
fi

# 10. PyTorch programs: --pytorch names ops and modules, capture ranges record only inside the
#     range, the lean API trace counts what it does not record; the program's output never changes.
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  mlp="$pytorch_samples/mlp_train.py"
  plain=$(python3 "$mlp" --steps 20 | grep '^losses')
  "$gpuscope" profile --no-report --pytorch=modules -o mlpmod -- python3 "$mlp" --steps 20 >"$logs/mlpmod.out" 2>"$logs/mlpmod.err"
  expect "--pytorch=modules: exit code" $? -eq 0
  expect "--pytorch=modules: output unchanged" "$(grep -c -F "$plain" "$logs/mlpmod.out")" -eq 1
  expect "--pytorch: aten::addmm ops (3 per step)" "$(q mlpmod.gpuscope "SELECT COUNT(*) FROM host_ops h JOIN strings s ON s.id = h.name_id WHERE s.value = 'aten::addmm'")" -ge 60
  expect "--pytorch: backward ops paired by sequence number" "$(q mlpmod.gpuscope "SELECT COUNT(*) FROM host_ops h JOIN strings s ON s.id = h.name_id WHERE s.value = 'AddmmBackward0' AND h.sequence_number >= 0")" -ge 60
  expect "--pytorch=modules: the 6 module paths" "$(q mlpmod.gpuscope "SELECT COUNT(DISTINCT s.value) FROM host_ops h JOIN strings s ON s.id = h.name_id JOIN strings c ON c.id = h.category_id WHERE c.value = 'module'")" -eq 6
  expect "--pytorch: op ranges are not left as NVTX ranges" "$(q mlpmod.gpuscope "SELECT COUNT(*) FROM nvtx_ranges_named WHERE name LIKE '%, op_id = %'")" -eq 0
  expect "--pytorch: user ranges stay NVTX ranges" "$(q mlpmod.gpuscope "SELECT COUNT(*) FROM nvtx_ranges_named WHERE name = 'train_step'")" -eq 20
  expect "--pytorch: >= 90% of kernels linked to an op" "$(q mlpmod.gpuscope "SELECT CAST(100.0 * (SELECT COUNT(*) FROM kernels k JOIN external_correlations e ON e.pid = k.pid AND e.correlation_id = k.correlation_id) / COUNT(*) AS INT) FROM kernels")" -ge 90
  "$gpuscope" report mlpmod.gpuscope >"$logs/mlpmod.report" 2>>"$logs/report.err"
  expect "--pytorch: report names ops and modules" "$(grep -c -E 'aten::addmm|Sequential\.2' "$logs/mlpmod.report")" -ge 2

  # A torch.compile'd model under --pytorch=modules: the module hooks must not break its compile
  # (Dynamo inlines global module hooks), so it runs and computes what it does untraced.
  compiled_sum=$(python3 "$diagnosis_programs/compiled.py" --steps 20 2>/dev/null | grep -o '"checksum": [-0-9.e+]*')
  if [ -n "$compiled_sum" ]; then
    "$gpuscope" profile --no-report --pytorch=modules -o compmod -- python3 "$diagnosis_programs/compiled.py" --steps 20 \
      >"$logs/compmod.out" 2>"$logs/compmod.err"
    expect "--pytorch=modules with torch.compile: exit code" $? -eq 0
    expect "--pytorch=modules with torch.compile: compiled, same result" "$(grep -c -F "$compiled_sum" "$logs/compmod.out")" -eq 1
  else
    echo "SKIP --pytorch=modules with torch.compile: torch.compile does not work on this host untraced"
  fi

  # The lean API trace (--api lean) and the full one, every call.
  "$gpuscope" profile --no-report --api lean -o mlplean -- python3 "$mlp" --steps 20 >"$logs/mlplean.out" 2>"$logs/mlplean.err"
  expect "lean API: output unchanged" "$(grep -c -F "$plain" "$logs/mlplean.out")" -eq 1
  expect "lean API: cudaGetDevice counted" "$(q mlplean.gpuscope "SELECT COALESCE(SUM(calls), 0) FROM api_call_counts_named WHERE name = 'cudaGetDevice'")" -ge 1000
  expect "lean API: only its first call recorded" "$(q mlplean.gpuscope "SELECT COUNT(*) FROM api_calls_named WHERE name = 'cudaGetDevice'")" -eq 1
  expect "lean API: launches still recorded" "$(q mlplean.gpuscope "SELECT COUNT(*) FROM api_calls_named WHERE name LIKE 'cudaLaunchKernel%'")" -ge 600
  "$gpuscope" profile --no-report --api full -o mlpfull -- python3 "$mlp" --steps 20 >"$logs/mlpfull.out" 2>"$logs/mlpfull.err"
  expect "--api full: every cudaGetDevice recorded" "$(q mlpfull.gpuscope "SELECT COUNT(*) FROM api_calls_named WHERE name = 'cudaGetDevice'")" -ge 1000
  expect "--api full: nothing only counted" "$(q mlpfull.gpuscope "SELECT COUNT(*) FROM api_call_counts")" -eq 0

  # The core API trace (--api core, the default): our own callbacks record the calls the analyses
  # use, the launches of cuBLAS (through the driver API) included; pure queries are not recorded.
  "$gpuscope" profile --no-report --api core -o mlpcore -- python3 "$mlp" --steps 20 >"$logs/mlpcore.out" 2>"$logs/mlpcore.err"
  expect "core API: exit code" $? -eq 0
  expect "core API: output unchanged" "$(grep -c -F "$plain" "$logs/mlpcore.out")" -eq 1
  expect "core API: no gpuscope complaint" "$(grep -v 'program exit code' "$logs/mlpcore.err" | grep -c 'gpuscope:')" -eq 0
  expect "core API: the processes say core" "$(q mlpcore.gpuscope "SELECT COUNT(*) FROM processes WHERE api_trace <> 'core'")" -eq 0
  expect "--api full: the processes say full" "$(q mlpfull.gpuscope "SELECT COUNT(*) FROM processes WHERE api_trace <> 'full'")" -eq 0
  expect "core API: cudaGetDevice not recorded" "$(q mlpcore.gpuscope "SELECT COUNT(*) FROM api_calls_named WHERE name = 'cudaGetDevice'")" -eq 0
  expect "core API: every kernel has its launch call" "$(q mlpcore.gpuscope "SELECT COUNT(*) FROM kernels k WHERE NOT EXISTS (SELECT 1 FROM api_calls a WHERE a.pid = k.pid AND a.correlation_id = k.correlation_id)")" -eq 0
  expect "core API: as many kernels as the full trace" "$(q mlpcore.gpuscope "SELECT COUNT(*) FROM kernels")" -eq "$(q mlpfull.gpuscope "SELECT COUNT(*) FROM kernels")"
  expect "core API: driver launches recorded (cuBLAS)" "$(q mlpcore.gpuscope "SELECT COUNT(*) FROM api_calls_named WHERE name LIKE 'cuLaunchKernel%'")" -ge 60
  expect "core API: synchronizations recorded" "$(q mlpcore.gpuscope "SELECT COUNT(*) FROM api_calls_named WHERE name LIKE '%Synchronize%'")" -ge 1
  expect "core API: as many synchronization records as CUPTI's" "$(q mlpcore.gpuscope "SELECT COUNT(*) FROM synchronizations")" -eq "$(q mlpfull.gpuscope "SELECT COUNT(*) FROM synchronizations")"
  expect "core API: the same kinds of synchronization" "$(q mlpcore.gpuscope "SELECT GROUP_CONCAT(sync_kind) FROM (SELECT DISTINCT sync_kind FROM synchronizations ORDER BY sync_kind)")" = "$(q mlpfull.gpuscope "SELECT GROUP_CONCAT(sync_kind) FROM (SELECT DISTINCT sync_kind FROM synchronizations ORDER BY sync_kind)")"
  expect "core API: nothing dropped" "$(q mlpcore.gpuscope "SELECT COUNT(*) FROM data_loss WHERE what = 'api_records_dropped'")" -eq 0
  "$gpuscope" profile --no-report --api core --capture-range cudaProfilerApi -o mlpcorecr -- python3 "$mlp" --steps 20 --profile-range 5:10 >"$logs/mlpcorecr.out" 2>"$logs/mlpcorecr.err"
  expect "core API in a capture range: no call recorded outside" "$(q mlpcorecr.gpuscope "SELECT COUNT(*) FROM api_calls a, capture_windows w WHERE a.start_ns < w.start_ns OR a.start_ns > w.end_ns")" -eq 0
  expect "core API in a capture range: its kernels have their launch call" "$(q mlpcorecr.gpuscope "SELECT COUNT(*) FROM kernels k WHERE NOT EXISTS (SELECT 1 FROM api_calls a WHERE a.pid = k.pid AND a.correlation_id = k.correlation_id)")" -eq 0

  # Capture ranges: torch.cuda.profiler.start()/stop() around steps 5..9, and NVTX train_step.
  "$gpuscope" profile --no-report --capture-range cudaProfilerApi -o mlpcr -- python3 "$mlp" --steps 20 --profile-range 5:10 >"$logs/mlpcr.out" 2>"$logs/mlpcr.err"
  expect "capture range cudaProfilerApi: output unchanged" "$(grep -c -F "$plain" "$logs/mlpcr.out")" -eq 1
  expect "capture range cudaProfilerApi: one window" "$(q mlpcr.gpuscope "SELECT COUNT(*) FROM capture_windows")" -eq 1
  expect "capture range cudaProfilerApi: the 5 steps inside" "$(q mlpcr.gpuscope "SELECT COUNT(*) FROM nvtx_ranges_named WHERE name = 'train_step'")" -eq 5
  expect "capture range cudaProfilerApi: no kernel launched outside" "$(q mlpcr.gpuscope "SELECT COUNT(*) FROM kernels k JOIN api_calls a ON a.pid = k.pid AND a.correlation_id = k.correlation_id, capture_windows w WHERE a.start_ns < w.start_ns OR a.start_ns > w.end_ns")" -eq 0
  expect "capture range cudaProfilerApi: kernels of 5 steps (>= 30 each)" "$(q mlpcr.gpuscope "SELECT COUNT(*) FROM kernels")" -ge 150
  expect "capture range cudaProfilerApi: kernels of 5 steps (<= 50 each)" "$(q mlpcr.gpuscope "SELECT COUNT(*) FROM kernels")" -le 250
  "$gpuscope" profile --no-report --capture-range nvtx:train_step --capture-range-end repeat:3 -o mlpnv -- python3 "$mlp" --steps 20 >"$logs/mlpnv.out" 2>"$logs/mlpnv.err"
  expect "capture range nvtx repeat:3: output unchanged" "$(grep -c -F "$plain" "$logs/mlpnv.out")" -eq 1
  expect "capture range nvtx repeat:3: three windows" "$(q mlpnv.gpuscope "SELECT COUNT(*) FROM capture_windows")" -eq 3
  expect "capture range nvtx repeat:3: kernels of 3 steps (>= 30 each)" "$(q mlpnv.gpuscope "SELECT COUNT(*) FROM kernels")" -ge 90
  expect "capture range nvtx repeat:3: kernels of 3 steps (<= 50 each)" "$(q mlpnv.gpuscope "SELECT COUNT(*) FROM kernels")" -le 150
else
  echo "SKIP pytorch features: python3 with CUDA torch not available"
fi

# 11. Hardware metrics (range profiler): every launch measured and linked to its kernel,
#     replayed kernels placed on the timeline, filters as ncu's, results unchanged, the
#     verdicts an expert expects (FMA chains compute-bound, triad memory-bound).
mk="$samples/metrics_kernels"
plain_result=$("$mk" --iters 2 | grep '^RESULT')
"$gpuscope" profile --no-report -o mx --metrics sol,memory -- "$mk" --iters 2 >"$logs/mx.out" 2>"$logs/mx.err"
expect "metrics: exit code" $? -eq 0
expect "metrics: results unchanged" "$(grep -c -F "$plain_result" "$logs/mx.out")" -eq 1
expect "metrics: all 8 launches measured" "$(q mx.gpuscope "SELECT COUNT(DISTINCT correlation_id) FROM kernel_metrics")" -eq 8
expect "metrics: every value linked to its kernel" "$(q mx.gpuscope "SELECT COUNT(*) FROM kernel_metrics_named WHERE kernel IS NULL")" -eq 0
expect "metrics: collection ok" "$(q mx.gpuscope "SELECT COUNT(*) FROM metric_collections WHERE kind = 'kernel' AND status = 'ok' AND kernels_profiled = 8")" -eq 1
expect "metrics: replayed kernels placed on the timeline" "$(q mx.gpuscope "SELECT COUNT(*) FROM kernels WHERE end_ns > start_ns")" -eq 8
expect "metrics: FMA kernel SM throughput >= 80%" "$(q mx.gpuscope "SELECT CAST(MIN(value) AS INT) FROM kernel_metrics_named WHERE kernel LIKE 'fma_kernel%' AND metric = 'sm__throughput.avg.pct_of_peak_sustained_elapsed'")" -ge 80
expect "metrics: triad DRAM throughput >= 60%" "$(q mx.gpuscope "SELECT CAST(MIN(value) AS INT) FROM kernel_metrics_named WHERE kernel LIKE 'triad%' AND metric = 'dram__throughput.avg.pct_of_peak_sustained_elapsed'")" -ge 60
expect "metrics: triad reads 2 x 256 MiB from DRAM (+-2%)" "$(q mx.gpuscope "SELECT CAST(ABS(MIN(value) / 536870912.0 - 1) * 100 AS INT) FROM kernel_metrics_named WHERE kernel LIKE 'triad%' AND metric = 'dram__bytes_read.sum'")" -le 2
"$gpuscope" report mx.gpuscope >"$logs/mx.report" 2>>"$logs/report.err"
expect "metrics: report shows the bound verdicts" "$(grep -E -c '^(fma_kernel|triad_kernel).*(compute|memory)$' "$logs/mx.report")" -eq 2
# The profiler's own time: recorded per measured launch, and cut out of the analysed timeline,
# so the report's wall time is the program's (within 1.5x of a run traced without metrics).
overhead_rows() { q mx.gpuscope "SELECT COUNT(*) FROM cupti_overhead o JOIN strings s ON s.id = o.kind_id WHERE s.value = '$1'"; }
expect "metrics: one replay interval per measured launch" "$(overhead_rows gpuscope_kernel_replay)" -eq 8
expect "metrics: one set-up interval" "$(overhead_rows gpuscope_metric_setup)" -eq 1
expect "metrics: every measured launch call lies inside its replay interval" "$(q mx.gpuscope "SELECT COUNT(*) FROM api_calls_named a WHERE a.name LIKE 'cudaLaunchKernel%' AND a.correlation_id IN (SELECT correlation_id FROM kernel_metrics) AND EXISTS (SELECT 1 FROM cupti_overhead o JOIN strings s ON s.id = o.kind_id WHERE s.value = 'gpuscope_kernel_replay' AND o.start_ns <= a.start_ns AND a.end_ns <= o.end_ns)")" -eq 8
expect "metrics: report says how much collection time it cut" "$(grep -c 'less .* of metric collection' "$logs/mx.report")" -eq 1
"$gpuscope" profile --no-report -o mxplain -- "$mk" --iters 2 >/dev/null 2>"$logs/mxplain.err"
report_wall_ms() { "$gpuscope" report --format json "$1" | python3 -c "import json,sys; r=json.load(sys.stdin); print(int([l for s in r['sections'] if s['key']=='summary' for l in s['lines'] if l['key']=='wall_time'][0]['value']/1e6))"; }
plain_wall_ms=$(report_wall_ms mxplain.gpuscope)
cut_wall_ms=$(report_wall_ms mx.gpuscope)
raw_wall_ms=$(q mx.gpuscope "SELECT (end_ns - start_ns) / 1000000 FROM run")
echo "     wall ms: traced $plain_wall_ms, with metrics $raw_wall_ms as run, $cut_wall_ms as analysed"
expect "metrics: analysed wall time within 1.5x of the traced run's" "$((cut_wall_ms * 2))" -le "$((plain_wall_ms * 3))"
# A metric the user named (--metric) is never dropped for the chip: one it lacks is refused by name,
# and the trace is still captured. (The sets' metrics a chip lacks are left out and counted; every
# one exists on Hopper, so MetricsHostTest checks that against other chips on the CPU.) Set up
# through the injection's own config, which does not check names against the sets.
chip_run() {  # NAME CONFIG_TAIL
  rm -f "$1".*.spool
  CUDA_INJECTION64_PATH="$build/libgpuscope_inject.so" GPUSCOPE_INJECT_CONFIG="spool=$work/$1;$2" \
    "$mk" --iters 1 >"$logs/$1.out" 2>"$logs/$1.err"
  "$gpuscope" import -f -o "$1" "$work/$1".*.spool >/dev/null 2>>"$logs/$1.err"
}
chip_run chipreq "metric=sm__no_such_metric.sum"
expect "chip: a missing metric the user named is refused, by name" "$(q chipreq.gpuscope "SELECT COUNT(*) FROM metric_collections WHERE status LIKE '%sm__no_such_metric%'")" -eq 1
expect "chip: refused, the trace is still captured" "$(q chipreq.gpuscope "SELECT COUNT(*) FROM kernels")" -ge 4

# The tensor roof: bsr_spmm's WMMA kernel runs mma.sync, and the share of that path's peak it
# reaches must match how busy its tensor pipe was (H100: 37.3 % vs 37.9 %).
"$gpuscope" profile --no-report -o tr --metrics roofline,compute -- "$samples/bsr_spmm" --persistent --pinned --iters 2 >"$logs/tr.out" 2>"$logs/tr.err"
expect "tensor roof: exit code" $? -eq 0
tensor_check=$("$gpuscope" report --format json tr.gpuscope | python3 -c "
import json, sys
r = json.load(sys.stdin)
tables = {t['key']: t for s in r['sections'] for t in s['tables']}
roof, tc = tables['roofline']['rows'][0], tables['tensor_cores']['rows'][0]
mma = any('mma.sync FP16->FP32 100%' in n for n in tables['roofline']['notes'])
print(int(mma), int(abs(roof['achieved'] / roof['peak'] * 100 - tc['pipe_active']) * 10))")
read -r tensor_mma tensor_gap_tenths <<<"$tensor_check"
expect "tensor roof: bsr_spmm's kernel runs mma.sync FP16" "$tensor_mma" -eq 1
expect "tensor roof: share of the peak within 5 pp of tensor pipe active" "$tensor_gap_tenths" -le 50
"$gpuscope" profile --no-report -o flt --metrics sol --kernel 'transpose' --launch-skip 1 --launch-count 2 -- "$mk" --iters 2 >/dev/null 2>"$logs/flt.err"
expect "metrics: --kernel/--launch-skip/--launch-count measure exactly 2" "$(q flt.gpuscope "SELECT COUNT(DISTINCT correlation_id) FROM kernel_metrics")" -eq 2
expect "metrics: filter skipped the first transpose" "$(q flt.gpuscope "SELECT COUNT(*) FROM kernel_metrics_named WHERE kernel LIKE 'transpose_conflicts%' AND metric = 'gpu__time_duration.sum'")" -eq 1
"$gpuscope" profile --no-report -o badm --metric no_such__metric.sum -- "$samples/crash" --mode exit3 >/dev/null 2>"$logs/badm.err"
expect "metrics: bad metric keeps the program's exit status" $? -eq 3
expect "metrics: bad metric named in the status" "$(q badm.gpuscope "SELECT COUNT(*) FROM metric_collections WHERE status LIKE '%no_such__metric%'")" -eq 1
expect "metrics: bad metric, trace still captured" "$(q badm.gpuscope "SELECT COUNT(*) FROM kernels")" -ge 1

# 12. GPU-wide sampling (NVML GPM): samples over the run, kernels still traced, results
#     unchanged; the GPU's ~100 ms windows, the SMs busy while 1000 FMA kernels (~1 ms each) run.
plain_result=$("$mk" --iters 3 | grep '^RESULT' | sed 's/ wall_ms=[0-9.]*//')
"$gpuscope" profile --no-report -o gpm --gpu-metrics -- "$mk" --iters 3 >"$logs/gpm.out" 2>"$logs/gpm.err"
expect "gpu metrics: exit code" $? -eq 0
expect "gpu metrics: results unchanged" "$(grep '^RESULT' "$logs/gpm.out" | sed 's/ wall_ms=[0-9.]*//' | grep -c -x -F "$plain_result")" -eq 1
expect "gpu metrics: kernels still traced (12)" "$(q gpm.gpuscope "SELECT COUNT(*) FROM kernels")" -eq 12
expect "gpu metrics: sampling ok" "$(q gpm.gpuscope "SELECT COUNT(*) FROM metric_collections WHERE kind = 'sampling' AND status = 'ok'")" -eq 1
"$gpuscope" profile --no-report -o gpmb --gpu-metrics -- "$mk" --only fma --iters 1000 >"$logs/gpmb.out" 2>"$logs/gpmb.err"
expect "gpu metrics: FMA run exit code" $? -eq 0
expect "gpu metrics: >= 5 samples of SM active" "$(q gpmb.gpuscope "SELECT COUNT(*) FROM gpu_metric_samples_named WHERE metric = 'gpm__sm_active.pct'")" -ge 5
window_ms=$(q gpmb.gpuscope "SELECT CAST(AVG(end_ns - start_ns) / 1000000 AS INT) FROM gpu_metric_samples_named WHERE metric = 'gpm__sm_active.pct'")
expect "gpu metrics: mean window >= 80 ms" "$window_ms" -ge 80
expect "gpu metrics: mean window <= 200 ms" "$window_ms" -le 200
expect "gpu metrics: SM active >= 80% while the FMA kernels run" "$(q gpmb.gpuscope "SELECT CAST(MAX(value) AS INT) FROM gpu_metric_samples_named WHERE metric = 'gpm__sm_active.pct'")" -ge 80
"$gpuscope" report gpmb.gpuscope >"$logs/gpmb.report" 2>>"$logs/report.err"
expect "gpu metrics: report has the GPU utilization section" "$(grep -c '^GPU utilization' "$logs/gpmb.report")" -eq 1
"$gpuscope" profile --no-report -o gpmx --gpu-metrics --metrics sol -- "$mk" --iters 1 >"$logs/gpmx.out" 2>"$logs/gpmx.err"
expect "gpu metrics with --metrics: refused with exit 2" $? -eq 2
expect "gpu metrics with --metrics: program not started" "$(grep -c RESULT "$logs/gpmx.out")" -eq 0

# 13. Several GPUs: DDP on 2 GPUs with a planted straggler (rank 1 sleeps 20 ms before
#     every backward pass): results unchanged, each process's rank recorded, the Ranks section
#     names rank 1 with its median lateness per step within 10 % of 20 ms and host gaps as the
#     cause, and the all-reduces' sizes (NCCL's NVTX payloads) give their bus bandwidth. On 4 GPUs
#     the same with rank 3 sleeping. Skipped on 1 GPU.
gpus=$(nvidia-smi -L | grep -c '^GPU')
if [ "$gpus" -ge 2 ] && command -v torchrun >/dev/null && python3 -c "import torch.distributed" 2>/dev/null; then
  ddp=$pytorch_samples/ddp_train.py
  export NCCL_NVLS_ENABLE=0  # NVLink multicast off on the lent machines (KINDS.md)
  torchrun --nproc-per-node 2 "$ddp" --steps 30 --straggler-rank 1 --straggler-ms 20 >"$logs/ddp_plain.out" 2>"$logs/ddp_plain.err"
  plain_rc=$?
  "$gpuscope" profile --no-report -o ddp -- torchrun --nproc-per-node 2 "$ddp" --steps 30 --straggler-rank 1 --straggler-ms 20 >"$logs/ddp.out" 2>"$logs/ddp.err"
  expect "ddp: exit status unchanged ($plain_rc)" $? -eq "$plain_rc"
  expect "ddp: losses unchanged" "$(diff <(grep ^losses "$logs/ddp_plain.out") <(grep ^losses "$logs/ddp.out") | wc -l)" -eq 0
  expect "ddp: ranks 0 and 1 of 2 recorded" "$(q ddp.gpuscope "SELECT COUNT(*) FROM processes WHERE rank IN (0, 1) AND world_size = 2")" -eq 2
  "$gpuscope" report ddp.gpuscope >"$logs/ddp_report.txt" 2>&1
  expect "ddp: the Ranks section names rank 1 as the straggler" "$(grep -c '^Straggler  *rank 1 ' "$logs/ddp_report.txt")" -eq 1
  late_us=$(sed -n 's/^Straggler .*median \([0-9.]*\) ms per.*/\1/p' "$logs/ddp_report.txt" | awk '{printf "%d", $1 * 1000}')
  expect "ddp: median lateness per step >= 18 ms" "${late_us:-0}" -ge 18000
  expect "ddp: median lateness per step <= 22 ms" "${late_us:-0}" -le 22000
  expect "ddp: all-reduce among the collectives" "$(sed -n '/^Collectives$/,/^Note/p' "$logs/ddp_report.txt" | grep -c '^all-reduce')" -eq 1
  expect "ddp: host gaps named as the cause" "$(grep -c '^Likely cause  *host gaps' "$logs/ddp_report.txt")" -eq 1
  expect "ddp: sizes of the all-reduce kernels known" "$(q ddp.gpuscope "SELECT COUNT(*) FROM collective_calls WHERE bytes > 0")" -ge 180
  expect "ddp: bus bandwidth of the all-reduces shown" "$(sed -n '/^Collective bandwidth/,/^Note/p' "$logs/ddp_report.txt" | grep -c '^all-reduce .* GB/s')" -ge 1
  cp ddp.gpuscope "$logs/" 2>/dev/null
  if [ "$gpus" -ge 4 ]; then
    "$gpuscope" profile --no-report -o ddp4 -- torchrun --nproc-per-node 4 "$ddp" --steps 30 --straggler-rank 3 --straggler-ms 20 >"$logs/ddp4.out" 2>"$logs/ddp4.err"
    expect "ddp on 4 GPUs: exit status 0" $? -eq 0
    "$gpuscope" report ddp4.gpuscope >"$logs/ddp4_report.txt" 2>&1
    expect "ddp on 4 GPUs: rank 3 named as the straggler" "$(grep -c '^Straggler  *rank 3 ' "$logs/ddp4_report.txt")" -eq 1
    late_us=$(sed -n 's/^Straggler .*median \([0-9.]*\) ms per.*/\1/p' "$logs/ddp4_report.txt" | awk '{printf "%d", $1 * 1000}')
    expect "ddp on 4 GPUs: median lateness per step within 10 % of 20 ms" "$(( ${late_us:-0} >= 18000 && ${late_us:-0} <= 22000 ))" -eq 1
    expect "ddp on 4 GPUs: the straggler rule fires" "$(grep -c 'rank 3 is the straggler' "$logs/ddp4_report.txt")" -ge 1
    expect "ddp on 4 GPUs: all-reduce bus bandwidth among 4 ranks" "$(sed -n '/^Collective bandwidth/,/^Note/p' "$logs/ddp4_report.txt" | grep -c '^all-reduce  *[0-9.]* MB  *4 ')" -ge 1
  fi
else
  echo "SKIP multi-GPU: $gpus GPU(s) visible (needs 2 and torchrun)"
fi

# 10. The report is produced in every format, from the file alone.
for fmt in text markdown json; do
  "$gpuscope" report base.gpuscope --format $fmt >"$logs/base.report.$fmt" 2>>"$logs/report.err"
  expect "report --format $fmt" $? -eq 0
done
cp base.gpuscope fixed.gpuscope storm.gpuscope segv.gpuscope "$logs/" 2>/dev/null

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
