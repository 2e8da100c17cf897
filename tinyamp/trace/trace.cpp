// The Trace container and the thread-local recorder that the dispatcher, the autocast layer and
// the backward engine write into.
#include "tinyamp/trace/trace.h"

namespace tinyamp::trace {
namespace {

// Each thread records into its own trace (or none), so ops on other threads never mix in.
thread_local Trace* recording = nullptr;

}  // namespace

const char* phase_name(Phase phase) { return phase == Phase::forward ? "forward" : "backward"; }

const char* cache_event_name(CacheEvent cache)
{
    switch (cache) {
    case CacheEvent::none: return "none";
    case CacheEvent::stored: return "stored";
    case CacheEvent::hit: return "hit";
    }
    return "none";  // unreachable: every enumerator is handled above
}

void Trace::add(Event event)
{
    // Counting on from the last event (not from the size) keeps seq increasing in a trace read
    // back from JSON whose events were filtered.
    event.seq = events_.empty() ? 1 : events_.back().seq + 1;
    events_.push_back(std::move(event));
}

TraceRecorder::TraceRecorder(Trace& trace) : previous_(recording) { recording = &trace; }

TraceRecorder::~TraceRecorder() { recording = previous_; }

Trace* current() { return recording; }

}  // namespace tinyamp::trace
