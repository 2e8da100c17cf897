#include "tinyamp/trace/op_timing.h"

#include <utility>

namespace tinyamp::trace {
namespace detail {
constinit thread_local OpTimes* timing_recorder = nullptr;
constinit thread_local int open_timed_pieces = 0;  // only the outermost counts
}  // namespace detail

using detail::open_timed_pieces;
using detail::timing_recorder;

double OpTimes::total_seconds() const
{
    double total = 0;
    for (const auto& [key, time] : by_key) total += time.seconds;
    return total;
}

OpTimingRecorder::OpTimingRecorder(OpTimes& times) : previous_(timing_recorder) { timing_recorder = &times; }
OpTimingRecorder::~OpTimingRecorder() { timing_recorder = previous_; }

void TimedPiece::start(const char* static_key, std::unique_ptr<std::string> built_key)
{
    static_key_ = static_key;
    built_key_ = std::move(built_key);
    running_ = true;
    ++open_timed_pieces;
    start_ = std::chrono::steady_clock::now();
}

TimedPiece::TimedPiece(TimedPiece&& other) noexcept
    : static_key_(other.static_key_), built_key_(std::move(other.built_key_)), running_(other.running_), start_(other.start_)
{
    other.running_ = false;
}

void TimedPiece::stop()
{
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    --open_timed_pieces;
    if (timing_recorder == nullptr) return;  // the recorder ended first
    OpTime& time = timing_recorder->by_key[static_key_ ? std::string(static_key_) : *built_key_];
    time.seconds += seconds;
    ++time.calls;
}

}  // namespace tinyamp::trace
