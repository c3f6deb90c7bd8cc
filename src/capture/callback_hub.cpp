#include "capture/callback_hub.h"


namespace gpuscope::capture {
namespace {

struct Users {
  const CuptiApi* api = nullptr;
  KernelProfiler* kernels = nullptr;
  DeviceSampler* sampler = nullptr;
};

Users g_users;  // set once, before the subscription delivers anything

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  try {
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) {
      if (g_users.kernels) g_users.kernels->on_launch_callback(*static_cast<const CUpti_CallbackData*>(cbdata));
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && g_users.sampler) {
      const auto& data = *static_cast<const CUpti_ResourceData*>(cbdata);
      uint32_t device = 0;
      if (g_users.api->profiler.GetDeviceId(data.context, &device) != CUPTI_SUCCESS) return;
      if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) g_users.sampler->device_in_use(device);
      if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) g_users.sampler->device_released(device);
    }
  } catch (...) {
    // Never let anything escape into the program's CUDA call.
  }
}

}  // namespace

std::string subscribe_callbacks(const CuptiApi& api, KernelProfiler* kernels, DeviceSampler* sampler) {
  const ProfilerApi& p = api.profiler;
  if (!p.Subscribe || !p.EnableCallback || !p.GetDeviceId) return "this libcupti lacks the callback API";
  g_users = Users{&api, kernels, sampler};
  CUpti_SubscriberHandle subscriber = nullptr;
  if (CUptiResult rc = p.Subscribe(&subscriber, on_callback, nullptr); rc != CUPTI_SUCCESS)
    return cupti_call_failure(api, "cuptiSubscribe", rc);
  if (kernels) KernelProfiler::enable_callbacks(p, subscriber);
  if (sampler) {
    p.EnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    p.EnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  }
  return "";
}

}  // namespace gpuscope::capture
