// Perfetto's native trace: TracePackets of TrackDescriptors and TrackEvents
// (docs/export.md, "Perfetto"). Small by construction, as Perfetto's own SDK writes:
//
//  - one packet sequence per lane (and per counter): its first packet clears the sequence's
//    state and sets TracePacketDefaults, so no event repeats its track_uuid or clock;
//  - a sequence-scoped incremental clock (ClockSnapshot clock 64, is_incremental, anchored to
//    CLOCK_REALTIME at the layout's origin): each packet's timestamp is the ns since the
//    previous packet of its sequence, two or three bytes for GPU work;
//  - event names (and annotation names and launch configurations) interned per sequence, sent
//    in the packet that first uses them.
#include <limits>
#include <unordered_map>

#include "common/error.h"
#include "common/utf8.h"
#include "export/lanes.h"
#include "export/perfetto_fields.h"
#include "export/proto_writer.h"
#include "export/writers.h"

namespace gpuscope::exporting {
namespace {

namespace pf = perfetto;
using tracks::Slice;
using tracks::SliceKind;

// The incremental state of one packet sequence.
struct Sequence {
  uint32_t id = 0;
  TimeNs last = 0;  // time of the previous packet (the clock's base at first)
  std::unordered_map<std::string, uint64_t> names, annotation_names, annotation_strings;  // text -> iid
};

class PerfettoWriter {
 public:
  PerfettoWriter(const Trace& trace, const tracks::Layout& layout, std::ostream& out, const PerfettoOptions& options)
      : trace_(trace), layout_(layout), lanes_(layout), out_(out), options_(options) {
    for (size_t i = 0; i < layout.flows.size(); ++i) {
      starts_[key(layout.flows[i].from)].push_back(i + 1);  // flow ids: index + 1 (0 is "none")
      ends_[key(layout.flows[i].to)].push_back(i + 1);
    }
  }

  void write() {
    descriptors();
    for (uint32_t li = 0; li < lanes_.all().size(); ++li) lane(li);
    for (uint32_t ci = 0; ci < layout_.counters.size(); ++ci) counter(ci);
  }

 private:
  static uint64_t key(const tracks::SliceRef& r) { return (uint64_t(r.track) << 32) | r.slice; }
  // uuids: 0 is the root; then groups, lanes and counters in layout order.
  uint64_t group_uuid(uint32_t g) const { return 1 + g; }
  uint64_t lane_uuid(uint32_t l) const { return 1 + layout_.groups.size() + l; }
  uint64_t counter_uuid(uint32_t c) const { return 1 + layout_.groups.size() + lanes_.all().size() + c; }

  // The track tree: each process, its threads and other lanes, and each GPU it used (nested
  // in the process) with its streams and counters. Ranks keep the layout's order.
  void descriptors() {
    ProtoMessage root;
    root.varint(pf::kUuid, 0)
        .varint(pf::kProcessOrdering, pf::kOrderingExplicit)
        .varint(pf::kThreadOrdering, pf::kOrderingExplicit);
    descriptor(root);
    int64_t rank = 0;
    for (uint32_t gi = 0; gi < layout_.groups.size(); ++gi) {
      const tracks::Group& g = layout_.groups[gi];
      ProtoMessage d;
      d.varint(pf::kUuid, group_uuid(gi));
      if (g.kind == tracks::GroupKind::Process) {
        ProtoMessage process;
        process.varint(pf::kProcessPid, lanes_.pid(gi)).bytes(pf::kProcessName, utf8::valid(g.name));
        d.message(pf::kProcess, process);
      } else {
        d.varint(pf::kParentUuid, group_uuid(lanes_.process_group(gi))).bytes(pf::kName, utf8::valid(g.name));
      }
      descriptor(d.varint(pf::kChildOrdering, pf::kChildOrderingExplicit).varint(pf::kSiblingOrderRank, rank++));
      for (uint32_t li = 0; li < lanes_.all().size(); ++li)
        if (lanes_.all()[li].group == gi) descriptor(lane_descriptor(li).varint(pf::kSiblingOrderRank, rank++));
      for (uint32_t ci : g.counters) {
        const tracks::Counter& c = layout_.counters[ci];
        ProtoMessage unit;
        if (c.unit == "bytes") unit.varint(pf::kCounterUnit, pf::kUnitSizeBytes);
        else if (!c.unit.empty()) unit.bytes(pf::kCounterUnitName, c.unit);
        d.clear();
        d.varint(pf::kUuid, counter_uuid(ci))
            .varint(pf::kParentUuid, group_uuid(gi))
            .bytes(pf::kName, utf8::valid(c.name));
        descriptor(d.message(pf::kCounter, unit).varint(pf::kSiblingOrderRank, rank++));
      }
    }
  }

  // A thread's own lane is a thread track; every other lane a named track in its group.
  ProtoMessage lane_descriptor(uint32_t li) {
    const Lane& lane = lanes_.all()[li];
    const tracks::Track& t = layout_.tracks[lane.track];
    ProtoMessage d;
    d.varint(pf::kUuid, lane_uuid(li));
    if (t.kind == tracks::TrackKind::Thread && lane.row == 0) {
      ProtoMessage thread;
      thread.varint(pf::kThreadPid, lanes_.pid(lane.group)).varint(pf::kThreadTid, lane.tid);
      d.message(pf::kThread, thread.bytes(pf::kThreadName, utf8::valid(lane.name)));
    } else {
      d.varint(pf::kParentUuid, group_uuid(lane.group)).bytes(pf::kName, utf8::valid(lane.name));
    }
    return d;
  }

  void descriptor(const ProtoMessage& d) {
    packet_.clear();
    emit(packet_.message(pf::kTrackDescriptor, d));
  }

  // A lane's slices as BEGIN/END pairs (and its marks as instants) in time order. Slices come
  // sorted by start, longer first; in a lane they nest, so the open ones form a stack.
  void lane(uint32_t li) {
    const Lane& lane = lanes_.all()[li];
    const tracks::Track& t = layout_.tracks[lane.track];
    const std::vector<tracks::Instant> none;
    const auto& marks = li == lanes_.first_lane(lane.track) ? t.marks : none;
    Sequence seq = start_sequence(lane_uuid(li));
    std::vector<const Slice*> open;
    size_t next_mark = 0;
    const auto close_until = [&](TimeNs time) {
      while (!open.empty() && open.back()->end <= time) {
        event(seq, open.back()->end).varint(pf::kType, pf::kTypeSliceEnd);
        finish_event();
        open.pop_back();
      }
    };
    const auto marks_before = [&](TimeNs time) {
      for (; next_mark < marks.size() && marks[next_mark].time < time; ++next_mark) {
        close_until(marks[next_mark].time);
        event(seq, marks[next_mark].time).varint(pf::kType, pf::kTypeInstant);
        event_.varint(pf::kNameIid, name_iid(seq, layout_.names[marks[next_mark].name]));
        finish_event();
      }
    };
    for (uint32_t si = 0; si < t.slices.size(); ++si) {
      const Slice& s = t.slices[si];
      if (!lane.holds(s)) continue;
      marks_before(s.start);
      close_until(s.start);
      event(seq, s.start).varint(pf::kType, pf::kTypeSliceBegin);
      event_.varint(pf::kNameIid, name_iid(seq, layout_.names[s.name]));
      flows(starts_, {lane.track, si}, pf::kFlowIds);
      flows(ends_, {lane.track, si}, pf::kTerminatingFlowIds);
      if (options_.launch_details) details(seq, s, ends_.count(key({lane.track, si})) > 0);
      finish_event();
      open.push_back(&s);
    }
    marks_before(std::numeric_limits<TimeNs>::max());
    close_until(std::numeric_limits<TimeNs>::max());
  }

  void flows(const std::unordered_map<uint64_t, std::vector<uint64_t>>& ids, tracks::SliceRef ref, uint32_t field) {
    const auto it = ids.find(key(ref));
    if (it != ids.end())
      for (uint64_t id : it->second) event_.varint(field, id);
  }

  // GPU work's details as debug annotations. A kernel's launch configuration is one interned
  // string, since a program launches the same few configurations over and over. The correlation
  // id only where no flow leads to the slice: a flow already joins it to its launch call, and
  // the id would cost ~4 bytes per slice of a launch storm (docs/export.md).
  void details(Sequence& seq, const Slice& s, bool has_flow) {
    uint32_t correlation = 0;
    switch (s.kind) {
      case SliceKind::Kernel: {
        const Kernel& k = trace_.kernels[s.source];
        const std::string launch = "grid [" + dims(k.grid) + "], block [" + dims(k.block) + "], " +
                                   std::to_string(k.registers_per_thread) + " registers per thread, " +
                                   std::to_string(uint64_t(k.static_shared_bytes) + k.dynamic_shared_bytes) +
                                   " B shared memory";
        annotate(seq, "launch", pf::kAnnotationStringIid, interned_string(seq, launch));
        correlation = k.correlation_id;
        break;
      }
      case SliceKind::Memcpy:
        annotate(seq, "bytes", pf::kAnnotationUint, trace_.memcpys[s.source].bytes);
        correlation = trace_.memcpys[s.source].correlation_id;
        break;
      case SliceKind::Memset:
        annotate(seq, "bytes", pf::kAnnotationUint, trace_.memsets[s.source].bytes);
        correlation = trace_.memsets[s.source].correlation_id;
        break;
      case SliceKind::GraphReplay: {
        const tracks::GraphReplay& r = layout_.graph_replays[s.source];
        annotate(seq, "graph id", pf::kAnnotationUint, r.graph_id);
        annotate(seq, "replay", pf::kAnnotationUint, r.replay);
        annotate(seq, "nodes", pf::kAnnotationUint, r.nodes);
        annotate(seq, "correlation", pf::kAnnotationUint, r.correlation_id);  // no flow leads to a replay
        return;
      }
      default: return;  // CPU slices: the flow leads to the GPU work and its details
    }
    if (!has_flow) annotate(seq, "correlation", pf::kAnnotationUint, correlation);
  }

  static std::string dims(const int32_t (&d)[3]) {
    return std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]);
  }

  // Adds DebugAnnotation{name_iid, `field`: value} to the event.
  void annotate(Sequence& seq, const std::string& name, uint32_t field, uint64_t value) {
    annotation_.clear();
    annotation_.varint(pf::kAnnotationNameIid,
                       intern(seq.annotation_names, pf::kDebugAnnotationNames, pf::kEntryName, name));
    event_.message(pf::kDebugAnnotations, annotation_.varint(field, value));
  }

  // A counter's points as TYPE_COUNTER events: whole bytes as integers, samples as doubles.
  void counter(uint32_t ci) {
    const tracks::Counter& c = layout_.counters[ci];
    Sequence seq = start_sequence(counter_uuid(ci));
    for (const tracks::CounterPoint& p : c.points) {
      event(seq, p.time).varint(pf::kType, pf::kTypeCounter);
      if (c.unit == "bytes") event_.varint(pf::kCounterValue, static_cast<uint64_t>(p.value));
      else event_.double_value(pf::kDoubleCounterValue, p.value);
      finish_event();
    }
  }

  // The first packet of a sequence: cleared state, defaults (this track, the sequence clock)
  // and the clock's anchor: clock 64 at the origin = CLOCK_REALTIME at the origin.
  Sequence start_sequence(uint64_t track_uuid) {
    Sequence seq;
    seq.id = ++sequences_;
    seq.last = layout_.origin;
    ProtoMessage track_defaults, defaults, incremental, realtime, snapshot;
    track_defaults.varint(pf::kDefaultTrackUuid, track_uuid);
    defaults.varint(pf::kDefaultTimestampClockId, pf::kSequenceClock).message(pf::kTrackEventDefaults, track_defaults);
    incremental.varint(pf::kClockId, pf::kSequenceClock)
        .varint(pf::kClockTimestamp, layout_.origin)
        .varint(pf::kClockIsIncremental, 1);
    realtime.varint(pf::kClockId, pf::kBuiltinClockRealtime).varint(pf::kClockTimestamp, layout_.origin);
    snapshot.message(pf::kClocks, incremental)
        .message(pf::kClocks, realtime)
        .varint(pf::kPrimaryTraceClock, pf::kBuiltinClockRealtime);
    packet_.clear();
    packet_.varint(pf::kTrustedPacketSequenceId, seq.id).varint(pf::kSequenceFlags, pf::kSeqIncrementalStateCleared);
    emit(packet_.message(pf::kTracePacketDefaults, defaults).message(pf::kClockSnapshot, snapshot));
    return seq;
  }

  // Starts the next event of `seq` at `time`; the caller adds fields to event_, then
  // finish_event() sends it with any names interned on the way.
  ProtoMessage& event(Sequence& seq, TimeNs time) {
    if (time < seq.last) throw Error("perfetto export: events out of time order on a lane");
    packet_.clear();
    packet_.varint(pf::kTimestamp, static_cast<uint64_t>(time - seq.last)).varint(pf::kTrustedPacketSequenceId, seq.id);
    seq.last = time;
    event_.clear();
    interned_.clear();
    return event_;
  }

  void finish_event() {
    if (!interned_.empty()) packet_.message(pf::kInternedData, interned_);
    emit(packet_.message(pf::kPacketTrackEvent, event_));
  }

  uint64_t name_iid(Sequence& seq, const std::string& name) {
    return intern(seq.names, pf::kEventNames, pf::kEntryName, name);
  }
  uint64_t interned_string(Sequence& seq, const std::string& text) {
    return intern(seq.annotation_strings, pf::kDebugAnnotationStrings, pf::kEntryString, text);
  }

  // The iid of `text` in one of the sequence's tables; a new one is added to the packet's
  // InternedData (field `list`) under the next iid (iids start at 1).
  uint64_t intern(std::unordered_map<std::string, uint64_t>& table, uint32_t list, uint32_t text_field,
                  const std::string& text) {
    const auto [it, added] = table.try_emplace(text, table.size() + 1);
    if (added) {
      ProtoMessage entry;
      entry.varint(pf::kIid, it->second).bytes(text_field, utf8::valid(text));
      interned_.message(list, entry);
    }
    return it->second;
  }

  void emit(const ProtoMessage& packet) { ProtoMessage::write_field(out_, pf::kTracePacket, packet); }

  const Trace& trace_;
  const tracks::Layout& layout_;
  const Lanes lanes_;
  std::ostream& out_;
  const PerfettoOptions options_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> starts_, ends_;  // slice -> flow ids
  uint32_t sequences_ = 0;
  ProtoMessage packet_, event_, interned_, annotation_;  // reused per packet
};

}  // namespace

void write_perfetto_trace(const Trace& trace, const tracks::Layout& layout, std::ostream& out,
                          const PerfettoOptions& options) {
  PerfettoWriter(trace, layout, out, options).write();
}

}  // namespace gpuscope::exporting
