#pragma once
// OpenBLAS's worker threads keep spinning for a while after a call returns, to answer the next call
// sooner (measured here: about 50 ms), and OpenMP's (oneDNN's) for a few ms. On two cores a spinning
// thread takes the core that the next library's benchmark needs. So every benchmark says which
// library it times, and when that changes, we first wait (untimed) for the others to go to sleep.

namespace tinyamp::bench {

enum class Library { tinyamp, openblas, onednn };

/// Sleeps 300 ms when the previous benchmark timed another library; returns at once otherwise.
void wait_when_library_changes(Library next);

}  // namespace tinyamp::bench
