#pragma once
// A one-line progress bar redrawn in place ("\r"), for a terminal; silent when disabled, so logs
// and CI output stay clean.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace tinyamp::train {

class ProgressBar {
public:
    /// Draws on `out` only when `enabled` (tinyamp-train enables it when stderr is a terminal).
    ProgressBar(std::ostream& out, bool enabled) : out_(out), enabled_(enabled) {}
    /// Redraws: "epoch 3/30 [########------------]  12/23  loss 0.1234".
    void update(const std::string& label, std::int64_t done, std::int64_t total, double loss);
    /// Erases the bar so the next line starts clean.
    void clear();

private:
    std::ostream& out_;
    bool enabled_;
    std::size_t last_width_ = 0;
};

/// "1.5 MiB", "512 B": bytes as a person reads them.
std::string format_bytes(std::int64_t bytes);

/// The median of \p values (0 for none): epoch and step times are quoted as medians, so one
/// slow epoch on a noisy machine does not move the figure.
double median(std::vector<double> values);

}  // namespace tinyamp::train
