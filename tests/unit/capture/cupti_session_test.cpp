// Which activity kinds and driver functions enable_kinds() turns on (cupti_session.h), on a CPU:
// CUPTI's enable calls and per-function switch are stood in for; the decisions are real.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "capture/cupti_session.h"
#include "capture/launch_callbacks.h"

namespace gpuscope::capture {
namespace {

std::set<CUpti_ActivityKind> g_enabled;
std::map<CUpti_CallbackId, uint8_t> g_driver_switches;
bool g_refuse_switches = false;

CUptiResult CUPTIAPI enable(CUpti_ActivityKind kind) {
  g_enabled.insert(kind);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI disable(CUpti_ActivityKind kind) {
  g_enabled.erase(kind);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI switch_driver_function(CUpti_CallbackId cbid, uint8_t on) {
  if (g_refuse_switches) return CUPTI_ERROR_INVALID_PARAMETER;
  g_driver_switches[cbid] = on;
  return CUPTI_SUCCESS;
}

CuptiApi stub_api(bool with_switch) {
  g_enabled.clear();
  g_driver_switches.clear();
  g_refuse_switches = false;
  CuptiApi api;
  api.ActivityEnable = enable;
  api.ActivityDisable = disable;
  if (with_switch) api.ActivityEnableDriverApi = switch_driver_function;
  return api;
}

TEST(DriverLaunches, ByDefaultOnlyTheLaunchFunctionsOfTheDriverApiAreRecorded) {
  const CuptiApi api = stub_api(true);
  const SessionResult r = enable_kinds(api, SessionSettings{});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.status, "ok");
  EXPECT_TRUE(g_enabled.count(CUPTI_ACTIVITY_KIND_DRIVER));
  for (CUpti_CallbackId id : kDriverLaunches)
    EXPECT_FALSE(g_driver_switches.count(id)) << "launch " << id << " stays on";
  for (CUpti_CallbackId id : kDriverGraphLaunches) EXPECT_FALSE(g_driver_switches.count(id)) << "graph launch " << id;
  EXPECT_EQ(g_driver_switches.at(CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent), 0);
  EXPECT_EQ(g_driver_switches.at(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2), 0);
  const size_t kept = std::size(kDriverLaunches) + std::size(kDriverGraphLaunches);
  EXPECT_EQ(g_driver_switches.size(), CUPTI_DRIVER_TRACE_CBID_SIZE - 1 - kept) << "every other function is off";
  for (const auto& [id, on] : g_driver_switches) EXPECT_EQ(on, 0) << id;

  stop_activity(api, SessionSettings{});
  EXPECT_TRUE(g_enabled.empty()) << "DRIVER is disabled with the rest";
}

TEST(DriverLaunches, WithDriverApiEveryDriverFunctionIsRecorded) {
  const CuptiApi api = stub_api(true);
  SessionSettings settings;
  settings.driver_api = true;
  ASSERT_TRUE(enable_kinds(api, settings).ok);
  EXPECT_TRUE(g_enabled.count(CUPTI_ACTIVITY_KIND_DRIVER));
  EXPECT_TRUE(g_driver_switches.empty());
}

TEST(DriverLaunches, OffLeavesTheDriverKindOff) {
  const CuptiApi api = stub_api(true);
  SessionSettings settings;
  settings.driver_launches = false;
  ASSERT_TRUE(enable_kinds(api, settings).ok);
  EXPECT_FALSE(g_enabled.count(CUPTI_ACTIVITY_KIND_DRIVER));
  EXPECT_TRUE(g_driver_switches.empty());
}

TEST(CoreApiTrace, LeavesTheRuntimeAndSynchronizationKindsToItsOwnCallbacks) {
  const CuptiApi api = stub_api(true);
  SessionSettings settings;
  settings.runtime_api = false;
  settings.synchronizations = false;
  ASSERT_TRUE(enable_kinds(api, settings).ok);
  EXPECT_FALSE(g_enabled.count(CUPTI_ACTIVITY_KIND_RUNTIME));
  EXPECT_FALSE(g_enabled.count(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION));
  EXPECT_TRUE(g_enabled.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  EXPECT_TRUE(g_enabled.count(CUPTI_ACTIVITY_KIND_MEMCPY));
  EXPECT_TRUE(g_enabled.count(CUPTI_ACTIVITY_KIND_MARKER)) << "NVTX ranges stay CUPTI's";

  ASSERT_TRUE(enable_kinds(stub_api(true), SessionSettings{}).ok);
  EXPECT_TRUE(g_enabled.count(CUPTI_ACTIVITY_KIND_RUNTIME));
  EXPECT_TRUE(g_enabled.count(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)) << "the full trace keeps CUPTI's";
}

TEST(DriverLaunches, ALibcuptiWithoutThePerFunctionSwitchRecordsNoDriverCallsAndSaysSo) {
  for (const bool has_switch : {false, true}) {
    const CuptiApi api = stub_api(has_switch);
    g_refuse_switches = has_switch;  // with the switch: it refuses every function
    const SessionResult r = enable_kinds(api, SessionSettings{});
    ASSERT_TRUE(r.ok) << "the capture goes on without them";
    EXPECT_FALSE(g_enabled.count(CUPTI_ACTIVITY_KIND_DRIVER)) << "not every driver call instead";
    EXPECT_NE(r.status.find("library kernels launched through the driver API have no launch call"), std::string::npos)
        << r.status;
  }
}

TEST(ActivityKindNamed, NamesEveryKindTheCaptureEnablesAndNothingElse) {
  // The overhead floor's per-kind measurements name kinds this way (bench/floor_injector.cpp).
  CuptiApi api = stub_api(/*with_switch=*/true);
  SessionSettings settings;
  settings.driver_api = true;
  ASSERT_TRUE(enable_kinds(api, settings).ok);
  for (const char* name : {"RUNTIME", "DRIVER", "CONCURRENT_KERNEL", "MEMCPY", "MEMCPY2", "MEMSET", "MEMORY2",
                           "SYNCHRONIZATION", "MARKER", "OVERHEAD", "DEVICE", "STREAM"}) {
    CUpti_ActivityKind kind{};
    ASSERT_TRUE(activity_kind_named(name, kind)) << name;
    EXPECT_EQ(g_enabled.count(kind), 1u) << name;
  }
  CUpti_ActivityKind kind{};
  EXPECT_FALSE(activity_kind_named("KERNEL", kind));
  EXPECT_FALSE(activity_kind_named("memcpy", kind));
  EXPECT_FALSE(activity_kind_named("", kind));
}

}  // namespace
}  // namespace gpuscope::capture
