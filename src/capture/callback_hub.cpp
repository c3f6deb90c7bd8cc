#include "capture/callback_hub.h"

#include <atomic>
#include <mutex>

#include "capture/failed_calls.h"
#include "capture/launch_callbacks.h"

namespace gpuscope::capture {
namespace {

struct Hub {
  const CuptiApi* api = nullptr;
  CallbackUsers users;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::mutex mutex;  // subscribe vs release
};

Hub g_hub;
std::atomic<bool> g_live{false};  // set once the users are in place; cleared on release

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  if (!g_live.load(std::memory_order_acquire)) return;
  const CallbackUsers& users = g_hub.users;
  try {
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) {
      const auto& data = *static_cast<const CUpti_CallbackData*>(cbdata);
      // Not exclusive: a recorded launch is also the kernel profiler's, NCCL's and the range's.
      if (users.recorder && users.recorder->records(domain, cbid)) users.recorder->on_callback(domain, cbid, data);
      if (users.filter && users.filter->filters(domain, cbid)) {
        users.filter->on_callback(domain, cbid, data);
        return;  // a query: neither a launch nor a profiler start/stop
      }
      if (users.sync_flush && SyncFlush::watches(domain, cbid)) {
        users.sync_flush->on_callback(data);
        return;  // a synchronization: neither a launch nor a profiler start/stop
      }
      if (users.nccl && is_driver_launch(domain, cbid)) users.nccl->on_launch_callback(data);
      if (users.range) users.range->on_api_callback(domain, cbid, data);
      if (users.kernels) users.kernels->on_launch_callback(data);
    } else if (domain == CUPTI_CB_DOMAIN_NVTX) {
      const auto& data = *static_cast<const CUpti_NvtxData*>(cbdata);
      if (users.range) users.range->on_nvtx_callback(cbid, data.functionParams, data.functionReturnValue);
      if (users.nccl) users.nccl->on_nvtx_callback(cbid, data.functionParams, data.functionReturnValue);
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
      const auto& data = *static_cast<const CUpti_ResourceData*>(cbdata);
      if (users.pc_sampler) users.pc_sampler->on_resource_callback(cbid, data);
      if (users.graphs &&
          (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED || cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED))
        users.graphs->on_resource_callback(cbid, data);
      const bool context_event = cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED ||
                                 cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING;
      if (!users.sampler || !context_event) return;
      uint32_t device = 0;
      if (const CUptiResult rc = g_hub.api->profiler.GetDeviceId(data.context, &device); rc != CUPTI_SUCCESS) {
        note_failed_call("cuptiGetDeviceId", cupti_result_text(*g_hub.api, rc),
                         "GPU metrics cannot tell which GPU a context is on and do not sample it");
        return;
      }
      if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) users.sampler->device_in_use(device);
      if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) users.sampler->device_released(device);
    }
  } catch (...) {
    // Never let anything escape into the program's CUDA call.
  }
}

}  // namespace

std::string subscribe_callbacks(const CuptiApi& api, const CallbackUsers& users) {
  const ProfilerApi& p = api.profiler;
  if (!p.Subscribe || !p.EnableCallback || !p.GetDeviceId) return "this libcupti lacks the callback API";
  std::lock_guard lock(g_hub.mutex);
  g_hub.api = &api;
  g_hub.users = users;
  if (CUptiResult rc = p.Subscribe(&g_hub.subscriber, on_callback, nullptr); rc != CUPTI_SUCCESS) {
    g_hub.subscriber = nullptr;
    return cupti_call_failure(api, "cuptiSubscribe", rc);
  }
  g_live.store(true, std::memory_order_release);
  if (users.kernels) KernelProfiler::enable_callbacks(api, g_hub.subscriber);
  if (users.sampler) {
    constexpr const char* kCost = "GPU metrics do not see the program's GPUs come and go, and may sample none";
    enable_callback(api, 1, g_hub.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, kCost);
    enable_callback(api, 1, g_hub.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
                    kCost);
  }
  if (users.filter && users.window_open) users.filter->enable_callbacks(api, g_hub.subscriber, users.driver_api);
  if (users.recorder && users.window_open) users.recorder->enable_callbacks(api, g_hub.subscriber);
  if (users.range) users.range->enable_callbacks(api, g_hub.subscriber);
  if (users.nccl) {
    constexpr const char* kCost = "NCCL's calls are not recorded: collectives show no bytes or bandwidth";
    // The launches only once NCCL is in the process (its domain created): others pay nothing.
    // Set before the NVTX callbacks are on, so no callback reads it while it changes.
    users.nccl->set_on_nccl_domain([] {
      std::lock_guard lock(g_hub.mutex);
      if (!g_live.load(std::memory_order_acquire) || g_hub.subscriber == nullptr) return;
      for (CUpti_CallbackId id : kDriverLaunches)
        enable_callback(*g_hub.api, 1, g_hub.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id,
                        "NCCL's kernels are not told apart by their launch: their bytes come from the runtime trace");
    });
    for (CUpti_CallbackId id : {CUPTI_CBID_NVTX_nvtxDomainCreateA, CUPTI_CBID_NVTX_nvtxDomainRangePushEx})
      enable_callback(api, 1, g_hub.subscriber, CUPTI_CB_DOMAIN_NVTX, id, kCost);
  }
  if (users.sync_flush) SyncFlush::enable_callbacks(api, g_hub.subscriber);
  if (users.pc_sampler) PcSampler::enable_callbacks(api, g_hub.subscriber);
  if (users.graphs) {
    constexpr const char* kCost = "kernels replayed from CUDA graphs are not attributed to the code that captured them";
    enable_callback(api, 1, g_hub.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, kCost);
    enable_callback(api, 1, g_hub.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, kCost);
  }
  return "";
}

void enable_window_callbacks(bool on) {
  std::lock_guard lock(g_hub.mutex);
  if (g_hub.subscriber == nullptr) return;
  if (g_hub.users.filter)
    g_hub.users.filter->enable_callbacks(*g_hub.api, g_hub.subscriber, g_hub.users.driver_api, on);
  if (g_hub.users.recorder) g_hub.users.recorder->enable_callbacks(*g_hub.api, g_hub.subscriber, on);
}

std::string release_callbacks() {
  std::lock_guard lock(g_hub.mutex);
  if (g_hub.subscriber == nullptr || g_hub.api->profiler.Unsubscribe == nullptr) return "";
  g_live.store(false, std::memory_order_release);
  if (const CUptiResult rc = g_hub.api->profiler.Unsubscribe(g_hub.subscriber); rc != CUPTI_SUCCESS)
    note_failed_call("cuptiUnsubscribe", cupti_result_text(*g_hub.api, rc),
                     "gpuscope stopped using its callbacks, but the program's own CUPTI client may not get them");
  g_hub.subscriber = nullptr;
  std::string lost;
  if (g_hub.users.filter) {
    g_hub.users.filter->set_counting(false);
    lost += "counts of filtered API calls";
  }
  if (g_hub.users.recorder) {
    g_hub.users.recorder->set_recording(false);
    lost += std::string(lost.empty() ? "" : ", ") + "the core API trace (kernels lose their launch call)";
  }
  if (g_hub.users.range) lost += std::string(lost.empty() ? "" : ", ") + "capture-range callbacks";
  if (g_hub.users.kernels || g_hub.users.sampler) lost += std::string(lost.empty() ? "" : ", ") + "metric callbacks";
  if (g_hub.users.sync_flush) lost += std::string(lost.empty() ? "" : ", ") + "flushes at synchronizations";
  if (g_hub.users.nccl) lost += std::string(lost.empty() ? "" : ", ") + "NCCL's calls";
  if (g_hub.users.graphs) lost += std::string(lost.empty() ? "" : ", ") + "CUDA graph nodes' capture sites";
  if (g_hub.users.pc_sampler) lost += std::string(lost.empty() ? "" : ", ") + "PC sampling of new GPU contexts";
  return lost;
}

}  // namespace gpuscope::capture
