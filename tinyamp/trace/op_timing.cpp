#include "tinyamp/trace/op_timing.h"

#include <utility>

namespace tinyamp::trace {
namespace {

thread_local OpTimes* timing = nullptr;
thread_local int running_pieces = 0;  // timed pieces open on this thread: only the outermost counts

}  // namespace

double OpTimes::total_seconds() const
{
    double total = 0;
    for (const auto& [key, time] : by_key) total += time.seconds;
    return total;
}

OpTimingRecorder::OpTimingRecorder(OpTimes& times) : previous_(timing) { timing = &times; }
OpTimingRecorder::~OpTimingRecorder() { timing = previous_; }

bool timing_ops() { return timing != nullptr && running_pieces == 0; }

TimedPiece::TimedPiece(const char* static_key, std::string built_key)
    : static_key_(static_key), built_key_(std::move(built_key)), running_(static_key_ != nullptr || !built_key_.empty())
{
    if (!running_) return;
    ++running_pieces;
    start_ = std::chrono::steady_clock::now();
}

TimedPiece::TimedPiece(TimedPiece&& other) noexcept
    : static_key_(other.static_key_), built_key_(std::move(other.built_key_)), running_(other.running_), start_(other.start_)
{
    other.running_ = false;
}

TimedPiece::~TimedPiece()
{
    if (!running_) return;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    --running_pieces;
    if (timing == nullptr) return;  // the recorder ended first
    OpTime& time = timing->by_key[static_key_ ? std::string(static_key_) : built_key_];
    time.seconds += seconds;
    ++time.calls;
}

}  // namespace tinyamp::trace
