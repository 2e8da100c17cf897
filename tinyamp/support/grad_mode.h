#pragma once
/// \file
/// Whether ops record the graph for backward (per thread, on by default), and the guard that
/// turns it off for a scope, like `with torch.no_grad():`.

namespace tinyamp {

/// Whether ops on this thread record the graph for backward (torch.is_grad_enabled).
bool is_grad_enabled();
/// Turns graph recording on or off for this thread (torch.set_grad_enabled); prefer the guards.
void set_grad_enabled(bool enabled);

/// Sets grad mode for a scope and restores the previous mode when the scope ends.
class GradModeGuard {
public:
    /// Saves the current mode and sets `enabled`. [[nodiscard]]: an unnamed `GradModeGuard(false);`
    /// would end at its semicolon and change nothing, so the compiler warns about it.
    [[nodiscard]] explicit GradModeGuard(bool enabled) : previous_(is_grad_enabled()) { set_grad_enabled(enabled); }
    ~GradModeGuard() { set_grad_enabled(previous_); }  ///< restores the saved mode
    GradModeGuard(const GradModeGuard&) = delete;
    GradModeGuard& operator=(const GradModeGuard&) = delete;

private:
    bool previous_;
};

/// No graph is recorded inside the scope: for evaluation and for updating weights
/// (`with torch.no_grad():`). Give it a name: `NoGradGuard no_grad;` (the compiler warns about
/// an unnamed `NoGradGuard();`, which would end at once).
class NoGradGuard : public GradModeGuard {
public:
    [[nodiscard]] NoGradGuard() : GradModeGuard(false) {}  ///< turns grad mode off until the scope ends
};

}  // namespace tinyamp
