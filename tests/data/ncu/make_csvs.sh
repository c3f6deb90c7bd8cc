#!/usr/bin/env bash
# Makes the ncu CSVs and the matching gpuscope captures in this folder, on a GPU host with ncu:
#   tests/data/ncu/make_csvs.sh BUILD_DIR OUTDIR
# ncu's stdout is redirected as users do (`ncu --csv ... > file.csv`), so each CSV starts with
# ncu's ==PROF== lines and the program's own output, as real files do.
set -u
build=$1 out=$2
mkdir -p "$out"
bsr=("$build/samples/bsr_spmm" --m 2048 --n 2048 --k 2048 --iters 3 --persistent --pinned)
mk=("$build/samples/metrics_kernels" --iters 2)
# gpuscope's own metric sets, as the raw names ncu takes (--metrics), one list.
names=$("$build/gpuscope" metrics --sets | grep -o "[a-z0-9_]*__[a-zA-Z0-9_.]*" | sort -u | paste -sd, -)
ncu --csv --page raw --set full --cache-control all --clock-control base "${bsr[@]}" > "$out/bsr_spmm_full_raw.csv" 2> "$out/ncu_bsr_raw.err"
ncu --csv --page details --set full --cache-control all --clock-control base "${bsr[@]}" > "$out/bsr_spmm_full_details.csv" 2> "$out/ncu_bsr_details.err"
ncu --csv --page raw --metrics "$names" "${mk[@]}" > "$out/metrics_kernels_raw.csv" 2> "$out/ncu_mk_raw.err"
ncu --csv --page details --section SpeedOfLight --section Occupancy --section LaunchStats "${mk[@]}" > "$out/metrics_kernels_details.csv" 2> "$out/ncu_mk_details.err"
"$build/gpuscope" profile --no-report -f -o "$out/bsr_spmm_small" -- "${bsr[@]}" > /dev/null 2> "$out/gpuscope_bsr.err"
"$build/gpuscope" profile --no-report -f -o "$out/metrics_kernels" -- "${mk[@]}" > /dev/null 2> "$out/gpuscope_mk.err"
ncu --version | tail -1 > "$out/ncu_version.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$out/ncu_version.txt"
