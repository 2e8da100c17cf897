#include "training/progress.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace tinyamp::train {

void ProgressBar::update(const std::string& label, std::int64_t done, std::int64_t total, double loss)
{
    if (!enabled_ || total <= 0) return;
    constexpr int width = 24;
    const int filled = int(width * done / total);
    char numbers[64];
    std::snprintf(numbers, sizeof numbers, "] %4lld/%lld  loss %.4f", static_cast<long long>(done), static_cast<long long>(total), loss);
    std::string line = label + " [" + std::string(std::size_t(filled), '#') + std::string(std::size_t(width - filled), '-') + numbers;
    last_width_ = line.size();
    out_ << '\r' << line << std::flush;
}

void ProgressBar::clear()
{
    if (!enabled_ || last_width_ == 0) return;
    out_ << '\r' << std::string(last_width_, ' ') << '\r' << std::flush;
    last_width_ = 0;
}

std::string format_bytes(std::int64_t bytes)
{
    char text[32];
    if (bytes < 1024)
        std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
    else if (bytes < 1024 * 1024)
        std::snprintf(text, sizeof text, "%.1f KiB", double(bytes) / 1024.0);
    else
        std::snprintf(text, sizeof text, "%.2f MiB", double(bytes) / (1024.0 * 1024.0));
    return text;
}

double median(std::vector<double> values)
{
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace tinyamp::train
