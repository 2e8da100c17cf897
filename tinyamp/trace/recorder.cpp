// The Trace container, the thread-local recorder that the dispatcher and the backward engine
// write into, and the nesting depth that tells a top-level op from one run inside another.
#include "tinyamp/trace/recorder.h"

namespace tinyamp::trace {
namespace {

// Each thread records into its own trace (or none), so ops on other threads never mix in.
thread_local Trace* recording = nullptr;
thread_local int nesting_depth = 0;

}  // namespace

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

NestedScope::NestedScope() { ++nesting_depth; }
NestedScope::~NestedScope() { --nesting_depth; }
bool at_top_level() { return nesting_depth == 0; }

}  // namespace tinyamp::trace
