#pragma once
/// \file
/// The trace, all of it: a record of every op, cast and cast-cache event on this thread, forward
/// and backward, that lessons print and the visualizer draws. Library files include the part
/// they need:
///
///   - value_stats.h: how a tensor's values sit against f16 and bf16 (histogram, shares);
///   - event.h: one event and the tensors it saw;
///   - recorder.h: Trace, TraceRecorder, and which ops are at top level (NestedScope);
///   - palette.h: the colors of dtypes;
///   - explain.h (above the autocast layer): the events and "why" lines built from what autocast
///     and the backward engine decided.

#include "tinyamp/trace/event.h"
#include "tinyamp/trace/palette.h"
#include "tinyamp/trace/recorder.h"
#include "tinyamp/trace/value_stats.h"
