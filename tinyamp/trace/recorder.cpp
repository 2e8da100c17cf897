// The Trace container, the thread-local recorder that the dispatcher and the backward engine
// write into, and the nesting depth that tells a top-level op from one run inside another.
#include "tinyamp/trace/recorder.h"

namespace tinyamp::trace {
namespace {

// Each thread records into its own trace (or none), so ops on other threads never mix in.
thread_local Trace* recording = nullptr;
thread_local int nesting_depth = 0;
thread_local int backward_depth = 0;  // backward() calls running (a hook may start another)

// The modules being run on this thread, outermost first: their names (owned by the modules,
// which outlive their own call) and type names.
struct ModuleFrame {
    const std::string* name;
    std::string type;
};
thread_local std::vector<ModuleFrame> module_stack;

}  // namespace

namespace {
// Casts noted inside the op whose event comes next (note_scaled_cast).
thread_local std::vector<ScaledCast> pending_scaled_casts;
}  // namespace

void note_scaled_cast(ScaledCast cast)
{
    if (current()) pending_scaled_casts.push_back(std::move(cast));
}

void Trace::add(Event event)
{
    if (!pending_scaled_casts.empty() && this == current()) {
        for (ScaledCast& cast : pending_scaled_casts) event.scaled_casts.push_back(std::move(cast));
        pending_scaled_casts.clear();
    }
    // Counting on from the last event (not from the size) keeps seq increasing in a trace read
    // back from JSON whose events were filtered.
    event.seq = events_.empty() ? 1 : events_.back().seq + 1;
    events_.push_back(std::move(event));
}

void Trace::clear()
{
    events_.clear();
    node_modules_.clear();
}

void Trace::remember_module(const void* node, const std::string& path, const std::string& type)
{
    // A node freed and another made at its address: the newer one's module wins.
    node_modules_[node] = {path, type};
}

const std::pair<std::string, std::string>* Trace::module_of(const void* node) const
{
    const auto found = node_modules_.find(node);
    return found == node_modules_.end() ? nullptr : &found->second;
}

TraceRecorder::TraceRecorder(Trace& trace) : previous_(recording) { recording = &trace; }

TraceRecorder::~TraceRecorder() { recording = previous_; }

Trace* current() { return recording; }

NestedScope::NestedScope() { ++nesting_depth; }
NestedScope::~NestedScope() { --nesting_depth; }
bool at_top_level() { return nesting_depth == 0; }

BackwardScope::BackwardScope() { ++backward_depth; }
BackwardScope::~BackwardScope() { --backward_depth; }
Phase current_phase() { return backward_depth > 0 ? Phase::backward : Phase::forward; }

ModuleScope::ModuleScope(const std::string& name, const std::string& type_name) : pushed_(!name.empty())
{
    if (pushed_) module_stack.push_back({&name, type_name});
}

ModuleScope::~ModuleScope()
{
    if (pushed_) module_stack.pop_back();
}

std::string current_module_path()
{
    std::string path;
    for (const ModuleFrame& frame : module_stack) path.append(path.empty() ? "" : ".").append(*frame.name);
    return path;
}

std::string current_module_types()
{
    std::string types;
    for (const ModuleFrame& frame : module_stack) types.append(types.empty() ? "" : ".").append(frame.type);
    return types;
}

}  // namespace tinyamp::trace
