#pragma once
// Whether ops record the graph for backward (per thread, on by default), and the guard that
// turns it off for a scope, like `with torch.no_grad():`.

namespace tinyamp {

bool is_grad_enabled();
void set_grad_enabled(bool enabled);

/// Sets grad mode for a scope and restores the previous mode when the scope ends.
class GradModeGuard {
public:
    explicit GradModeGuard(bool enabled) : previous_(is_grad_enabled()) { set_grad_enabled(enabled); }
    ~GradModeGuard() { set_grad_enabled(previous_); }
    GradModeGuard(const GradModeGuard&) = delete;
    GradModeGuard& operator=(const GradModeGuard&) = delete;

private:
    bool previous_;
};

/// No graph is recorded inside the scope: for evaluation and for updating weights.
class NoGradGuard : public GradModeGuard {
public:
    NoGradGuard() : GradModeGuard(false) {}
};

}  // namespace tinyamp
