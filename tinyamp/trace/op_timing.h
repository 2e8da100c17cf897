#pragma once
/// \file
/// Where a step's time goes: wall time per op, while an OpTimingRecorder is alive on the thread.
///
///     trace::OpTimes times;
///     {
///         trace::OpTimingRecorder timing(times);
///         loss = model(x) ...; loss.backward(); optimizer.step();
///     }
///     times.by_key["linear"].seconds, times.by_key["linear backward"].seconds, ...
///
/// Each key is timed where the work enters the library: a forward op by its name as the dispatcher
/// runs it ("linear", "to" for a cast), a backward node by its name and " backward" as the engine
/// runs it, an optimizer's step ("AdamW.step") and clip_grad_norm_ as a whole. Work started inside
/// a timed piece (an op's own inner ops, a backward formula's ops, the ops clip_grad_norm_ runs) is
/// part of that piece's time, never counted twice; what runs outside every piece (the engine's
/// queue, building the graph, the caller's own code) is in no key. Nothing is timed, and nothing
/// costs more than one thread-local read, while no recorder is alive.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

namespace tinyamp::trace {

/// One key's total.
struct OpTime {
    double seconds = 0;     ///< wall time, summed over calls
    std::int64_t calls = 0;
};

/// What an OpTimingRecorder collected.
struct OpTimes {
    std::map<std::string, OpTime> by_key;  ///< "linear", "linear backward", "to", "AdamW.step", ...
    /// The sum of every key's seconds.
    double total_seconds() const;
};

/// Times the library's work on this thread into \p times while alive (they nest: the innermost
/// recorder gets the times). Not copyable.
class OpTimingRecorder {
public:
    explicit OpTimingRecorder(OpTimes& times);
    ~OpTimingRecorder();
    OpTimingRecorder(const OpTimingRecorder&) = delete;
    OpTimingRecorder& operator=(const OpTimingRecorder&) = delete;

private:
    OpTimes* previous_;
};

/// True while an OpTimingRecorder is alive on this thread and no timed piece is running.
bool timing_ops();

/// Times its own lifetime under a key when timing_ops() holds where it starts (the dispatcher, the
/// engine and the optimizers make one; inner work is then part of it). The key is read at the end.
class TimedPiece {
public:
    /// \p key: a static string (an op's name), or nullptr to time nothing.
    explicit TimedPiece(const char* key) : TimedPiece(timing_ops() ? key : nullptr, std::string()) {}
    /// The same with a key built at run time, only when timing_ops() holds (pass a callable
    /// returning the key, so that nothing is built otherwise).
    template <class MakeKey>
    static TimedPiece named(MakeKey&& make_key)
    {
        return timing_ops() ? TimedPiece(nullptr, make_key()) : TimedPiece(nullptr, std::string());
    }
    ~TimedPiece();
    TimedPiece(TimedPiece&& other) noexcept;
    TimedPiece(const TimedPiece&) = delete;
    TimedPiece& operator=(const TimedPiece&) = delete;
    TimedPiece& operator=(TimedPiece&&) = delete;

private:
    TimedPiece(const char* static_key, std::string built_key);

    const char* static_key_ = nullptr;
    std::string built_key_;
    bool running_ = false;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace tinyamp::trace
