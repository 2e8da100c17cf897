#pragma once
/// \file
/// Warnings: things that are allowed but probably not what the user meant (PyTorch's UserWarning).
///
/// They go to stderr as "tinyamp warning: ...", unless a handler is installed (tests and the GUI
/// install one to show or check them).

#include <functional>
#include <string>

namespace tinyamp {

/// A function that receives each warning's message (without the "tinyamp warning: " prefix).
using WarningHandler = std::function<void(const std::string& message)>;

/// Issues a warning (Python's warnings.warn): the installed handler gets \p message, or, with
/// none installed, stderr gets the line "tinyamp warning: " + message. Thread-safe.
void warn(const std::string& message);
/// Replaces the handler (an empty one restores stderr) and returns the previous one.
WarningHandler set_warning_handler(WarningHandler handler);

}  // namespace tinyamp
