# Samples are CUDA programs (nvcc, sm_90). Filled in by the samples work.
