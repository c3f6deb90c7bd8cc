# Samples: CUDA programs that reproduce real scenarios for gpuscope to profile (docs/samples.md).
# Built only when a CUDA compiler is found; everything else in the project builds without CUDA.
# Binaries land in ${PROJECT_BINARY_DIR}/samples/ and link the CUDA runtime statically, so they
# can be copied to a GPU host that has a driver but no toolkit.

include(CheckLanguage)
# nvcc is rarely on PATH; point CMake at the toolkit the project already knows about.
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX}
   AND EXISTS "${GPUSCOPE_CUDA_ROOT}/bin/nvcc")
  set(ENV{CUDACXX} "${GPUSCOPE_CUDA_ROOT}/bin/nvcc")
endif()
check_language(CUDA)

if(NOT CMAKE_CUDA_COMPILER)
  message(STATUS "gpuscope: no CUDA compiler found; samples not built")
else()
  # Hopper only: "90" makes CMake emit sm_90 SASS plus compute_90 PTX (JIT on newer GPUs).
  # Set before enable_language so CMake does not pick its own default.
  set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures for the gpuscope samples")
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  message(STATUS "gpuscope: samples built with ${CMAKE_CUDA_COMPILER} for sm_${CMAKE_CUDA_ARCHITECTURES}")

  set(GPUSCOPE_SAMPLES_DIR ${PROJECT_SOURCE_DIR}/samples)

  # gpuscope_sample(<name> <sources...>): executable samples/<name>, target sample_<name>
  # (prefixed so generic names like "crash" cannot clash with other targets).
  function(gpuscope_sample name)
    set(target sample_${name})
    add_executable(${target} ${ARGN})
    set_target_properties(${target} PROPERTIES
      OUTPUT_NAME ${name}
      RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/samples
      CUDA_STANDARD 17
      CUDA_STANDARD_REQUIRED ON
      CXX_STANDARD 17
      CUDA_RUNTIME_LIBRARY Static
      # The top level adds -Wall/-Wextra for every language, which nvcc rejects; start clean and
      # pass the warnings to the host compiler explicitly below.
      COMPILE_OPTIONS "")
    target_include_directories(${target} PRIVATE ${GPUSCOPE_SAMPLES_DIR}/common)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
      $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${GPUSCOPE_WERROR}>>:-Werror>
      # -lineinfo: source lines in SASS, so kernel-level tools can attribute stalls to code.
      $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo -Xcompiler=-Wall,-Wextra>)
  endfunction()

  gpuscope_sample(bsr_spmm ${GPUSCOPE_SAMPLES_DIR}/bsr_spmm.cu)
  gpuscope_sample(launch_storm ${GPUSCOPE_SAMPLES_DIR}/launch_storm.cu)
  gpuscope_sample(crash ${GPUSCOPE_SAMPLES_DIR}/crash.cu)
  gpuscope_sample(spawn ${GPUSCOPE_SAMPLES_DIR}/spawn.cpp)
  gpuscope_sample(metrics_kernels ${GPUSCOPE_SAMPLES_DIR}/metrics_kernels.cu)
  gpuscope_sample(rule_patterns ${GPUSCOPE_SAMPLES_DIR}/rule_patterns.cu ${GPUSCOPE_SAMPLES_DIR}/rule_patterns_extra.cuh)
  gpuscope_sample(critical_path ${GPUSCOPE_SAMPLES_DIR}/critical_path.cu)
  gpuscope_sample(source_hotspots ${GPUSCOPE_SAMPLES_DIR}/source_hotspots.cu)
  gpuscope_sample(flash_attention ${GPUSCOPE_SAMPLES_DIR}/flash_attention.cu)
  # spawn execs launch_storm from its own directory.
  add_dependencies(sample_spawn sample_launch_storm)

  add_custom_target(samples DEPENDS sample_bsr_spmm sample_launch_storm sample_crash sample_spawn
                    sample_rule_patterns sample_metrics_kernels sample_critical_path sample_source_hotspots
                    sample_flash_attention)
endif()
