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
#include <memory>
#include <string>

namespace tinyamp::trace {

/// One key's total.
struct OpTime {
    double seconds = 0;     ///< wall time, summed over calls
    std::int64_t calls = 0;  ///< how many times the piece ran
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
    explicit OpTimingRecorder(OpTimes& times);  ///< from now on this thread's work is timed into \p times
    ~OpTimingRecorder();                         ///< the recorder outside (or none) takes over again
    OpTimingRecorder(const OpTimingRecorder&) = delete;
    OpTimingRecorder& operator=(const OpTimingRecorder&) = delete;

private:
    OpTimes* previous_;
};

namespace detail {
// The recorder of this thread (null: none) and how many timed pieces are open on it. constinit:
// read directly, with no thread-local initialization call, on every op.
extern constinit thread_local OpTimes* timing_recorder;
extern constinit thread_local int open_timed_pieces;
}  // namespace detail

/// True while an OpTimingRecorder is alive on this thread and no timed piece is running.
inline bool timing_ops() { return detail::timing_recorder != nullptr && detail::open_timed_pieces == 0; }

/// Times its own lifetime under a key when timing_ops() holds where it starts (the dispatcher, the
/// engine and the optimizers make one; inner work is then part of it). Costs a thread-local read
/// and a test while nothing is timed.
class TimedPiece {
public:
    /// \p key: a static string (an op's name).
    explicit TimedPiece(const char* key)
    {
        if (timing_ops()) start(key, nullptr);
    }
    /// The same with a key built at run time (a node's name and " backward"): \p make_key returns
    /// it, and is called only when timing_ops() holds.
    template <class MakeKey>
    static TimedPiece named(MakeKey&& make_key)
    {
        TimedPiece piece;
        if (timing_ops()) piece.start(nullptr, std::make_unique<std::string>(make_key()));
        return piece;
    }
    ~TimedPiece()
    {
        if (running_) stop();
    }
    TimedPiece(TimedPiece&& other) noexcept;  ///< takes over \p other's timing (named() returns one)
    TimedPiece(const TimedPiece&) = delete;
    TimedPiece& operator=(const TimedPiece&) = delete;
    TimedPiece& operator=(TimedPiece&&) = delete;

private:
    TimedPiece() = default;
    void start(const char* static_key, std::unique_ptr<std::string> built_key);
    void stop();

    const char* static_key_ = nullptr;
    std::unique_ptr<std::string> built_key_;
    bool running_ = false;
    std::chrono::steady_clock::time_point start_{};
};

}  // namespace tinyamp::trace
