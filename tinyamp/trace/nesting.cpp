#include "tinyamp/trace/trace.h"

namespace tinyamp::trace {
namespace {
thread_local int depth = 0;
}

NestedScope::NestedScope() { ++depth; }
NestedScope::~NestedScope() { --depth; }
bool at_top_level() { return depth == 0; }

}  // namespace tinyamp::trace
