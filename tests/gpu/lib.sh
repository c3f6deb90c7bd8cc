# Shared by the GPU scripts (source it): skip with CTest's code 77 where there is
# no GPU or no GPU build, so CPU-only machines report "skipped", not "failed".

# require_gpu_build BUILD_DIR: exits 77 unless a GPU is visible and BUILD_DIR has
# the capture library and the samples.
require_gpu_build() {
  if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP: no NVIDIA GPU visible (nvidia-smi -L failed); GPU tests need an H100/H200 host"
    exit 77
  fi
  if [ ! -x "$1/samples/bsr_spmm" ] || [ ! -f "$1/libgpuscope_inject.so" ]; then
    echo "SKIP: samples or capture library not built in $1 (needs the CUDA toolkit at build time)"
    exit 77
  fi
}

# gpu_name: "NAME, DRIVER" of the first GPU, for the logs.
gpu_name() { nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1; }
