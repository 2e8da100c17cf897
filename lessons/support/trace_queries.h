#pragma once
// The questions the lessons ask of a trace, written once: which forward ops ran, which casts
// autocast inserted, what the backward did. Each query returns the matching events in the order
// they were recorded, as pointers into the trace (which must outlive the answer).
//
//   const trace::Event* ce = lesson::first_event(lesson::forward_ops(t), "cross_entropy");
//   L.check(ce && lesson::output_dtype(*ce) == f32, "cross_entropy ran in f32");
#include <cstddef>
#include <set>
#include <string_view>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lesson {

using Events = std::vector<const trace::Event*>;

Events forward_ops(const trace::Trace& trace);      ///< forward events that are ops, not autocast's casts
Events casts(const trace::Trace& trace);            ///< the casts autocast inserted
/// The casts whose source tensor has Tensor::name() `tensor_name`.
Events casts_of(const trace::Trace& trace, std::string_view tensor_name);
Events backward_events(const trace::Trace& trace);  ///< one per graph node the backward engine ran
/// The events of `events` whose op is `op` ("linear", "to", "AccumulateGrad", ...).
Events events_named(const Events& events, std::string_view op);
/// The backward casts ("to" nodes) that turned a gradient arriving in `from` into one in `to`.
Events backward_casts(const trace::Trace& trace, DType from, DType to);

/// The nth (from 0) event of `events` whose op is `op`, or nullptr.
const trace::Event* first_event(const Events& events, std::string_view op, std::size_t nth = 0);
/// The last event of `events` whose op is `op`, or nullptr.
const trace::Event* last_event(const Events& events, std::string_view op);

/// How many of `events` the cast cache treated as `cache` (stored, hit or none).
std::size_t count_cache(const Events& events, trace::CacheEvent cache);
/// The dtype of an event's first output; throws std::invalid_argument for one without outputs.
DType output_dtype(const trace::Event& event);
/// The dtypes of every gradient the backward events of `op` passed on.
std::set<DType> gradient_dtypes(const trace::Trace& trace, std::string_view op);

}  // namespace tinyamp::lesson
