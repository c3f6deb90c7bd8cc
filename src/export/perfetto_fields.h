// Field numbers and enum values of Perfetto's trace protos that the Perfetto export writes,
// checked against google/perfetto's protos/perfetto/ (files named per block). Only numbers:
// the encoding is ours (proto_writer.h). A field number never changes in a published proto,
// so these stay valid for every Perfetto UI and trace_processor that reads them.
#pragma once

#include <cstdint>

namespace gpuscope::exporting::perfetto {

// trace/trace.proto: Trace
inline constexpr uint32_t kTracePacket = 1;  // repeated TracePacket packet

// trace/trace_packet.proto: TracePacket
inline constexpr uint32_t kTimestamp = 8;                   // uint64, in the packet's clock
inline constexpr uint32_t kTrustedPacketSequenceId = 10;    // uint32
inline constexpr uint32_t kPacketTrackEvent = 11;           // TrackEvent
inline constexpr uint32_t kInternedData = 12;               // InternedData
inline constexpr uint32_t kSequenceFlags = 13;              // uint32, SequenceFlags bits
inline constexpr uint32_t kClockSnapshot = 6;               // ClockSnapshot
inline constexpr uint32_t kTracePacketDefaults = 59;        // TracePacketDefaults
inline constexpr uint32_t kTrackDescriptor = 60;            // TrackDescriptor
inline constexpr uint64_t kSeqIncrementalStateCleared = 1;  // SequenceFlags

// trace/trace_packet_defaults.proto: TracePacketDefaults
inline constexpr uint32_t kDefaultTimestampClockId = 58;  // uint32
inline constexpr uint32_t kTrackEventDefaults = 11;       // TrackEventDefaults
// trace/track_event/track_event.proto: TrackEventDefaults
inline constexpr uint32_t kDefaultTrackUuid = 11;  // uint64

// trace/clock_snapshot.proto: ClockSnapshot, ClockSnapshot.Clock; common/builtin_clock.proto
inline constexpr uint32_t kClocks = 1;                // repeated Clock
inline constexpr uint32_t kPrimaryTraceClock = 2;     // BuiltinClock
inline constexpr uint32_t kClockId = 1;               // uint32
inline constexpr uint32_t kClockTimestamp = 2;        // uint64
inline constexpr uint32_t kClockIsIncremental = 3;    // bool
inline constexpr uint64_t kBuiltinClockRealtime = 1;  // BUILTIN_CLOCK_REALTIME
// Ids 64..127 are clocks of one packet sequence (clock_snapshot.proto); 64 is the first.
inline constexpr uint64_t kSequenceClock = 64;

// trace/track_event/track_descriptor.proto: TrackDescriptor
inline constexpr uint32_t kUuid = 1;                   // uint64
inline constexpr uint32_t kName = 2;                   // string
inline constexpr uint32_t kProcess = 3;                // ProcessDescriptor
inline constexpr uint32_t kThread = 4;                 // ThreadDescriptor
inline constexpr uint32_t kParentUuid = 5;             // uint64
inline constexpr uint32_t kCounter = 8;                // CounterDescriptor
inline constexpr uint32_t kChildOrdering = 11;         // ChildTracksOrdering
inline constexpr uint32_t kSiblingOrderRank = 12;      // int32
inline constexpr uint32_t kProcessOrdering = 19;       // ProcessOrdering
inline constexpr uint32_t kThreadOrdering = 20;        // ThreadOrdering
inline constexpr uint64_t kChildOrderingExplicit = 3;  // ChildTracksOrdering.EXPLICIT
inline constexpr uint64_t kOrderingExplicit = 1;       // PROCESS_ORDERING_EXPLICIT, THREAD_ORDERING_EXPLICIT

// trace/track_event/process_descriptor.proto, thread_descriptor.proto
inline constexpr uint32_t kProcessPid = 1;   // int32
inline constexpr uint32_t kProcessName = 6;  // string
inline constexpr uint32_t kThreadPid = 1;    // int32
inline constexpr uint32_t kThreadTid = 2;    // int64
inline constexpr uint32_t kThreadName = 5;   // string

// trace/track_event/counter_descriptor.proto: CounterDescriptor
inline constexpr uint32_t kCounterUnit = 3;      // Unit
inline constexpr uint32_t kCounterUnitName = 6;  // string
inline constexpr uint64_t kUnitSizeBytes = 3;    // Unit.UNIT_SIZE_BYTES

// trace/track_event/track_event.proto: TrackEvent
inline constexpr uint32_t kDebugAnnotations = 4;  // repeated DebugAnnotation
inline constexpr uint32_t kType = 9;              // Type
inline constexpr uint32_t kNameIid = 10;          // uint64, InternedData.event_names
inline constexpr uint32_t kCounterValue = 30;     // int64
// Flow ids as varints: flow_ids_old / terminating_flow_ids_old, marked deprecated in favour of
// the fixed64 flow_ids (47) / terminating_flow_ids (48) because Perfetto's own ids are 64-bit
// hashes, which take 10 bytes as varints. Ours count from 1 and take 1-3 bytes instead of 8;
// trace_processor reads both forms (track_event_event_importer.h, MaybeParseTrackEventFlows).
// docs/export.md, "Size", says what this saves.
inline constexpr uint32_t kFlowIds = 36;             // repeated uint64 flow_ids_old
inline constexpr uint32_t kTerminatingFlowIds = 42;  // repeated uint64 terminating_flow_ids_old
inline constexpr uint32_t kDoubleCounterValue = 44;  // double
inline constexpr uint64_t kTypeSliceBegin = 1, kTypeSliceEnd = 2, kTypeInstant = 3, kTypeCounter = 4;

// trace/interned_data/interned_data.proto: InternedData; EventName, DebugAnnotationName
// (track_event.proto, debug_annotation.proto) and InternedString share iid = 1.
inline constexpr uint32_t kEventNames = 2;               // repeated EventName
inline constexpr uint32_t kDebugAnnotationNames = 3;     // repeated DebugAnnotationName
inline constexpr uint32_t kDebugAnnotationStrings = 29;  // repeated InternedString
inline constexpr uint32_t kIid = 1;                      // uint64
inline constexpr uint32_t kEntryName = 2;                // EventName.name, DebugAnnotationName.name (string)
inline constexpr uint32_t kEntryString = 2;              // InternedString.str (bytes)

// trace/track_event/debug_annotation.proto: DebugAnnotation
inline constexpr uint32_t kAnnotationNameIid = 1;     // uint64
inline constexpr uint32_t kAnnotationUint = 3;        // uint64
inline constexpr uint32_t kAnnotationStringIid = 17;  // uint64, InternedData.debug_annotation_string_values

}  // namespace gpuscope::exporting::perfetto
