#pragma once
// Warnings: things that are allowed but probably not what the user meant (PyTorch's UserWarning).
// They go to stderr as "tinyamp warning: ...", unless a handler is installed (tests and the GUI
// install one to show or check them).

#include <functional>
#include <string>

namespace tinyamp {

using WarningHandler = std::function<void(const std::string& message)>;

void warn(const std::string& message);
/// Replaces the handler (an empty one restores stderr) and returns the previous one.
WarningHandler set_warning_handler(WarningHandler handler);

}  // namespace tinyamp
