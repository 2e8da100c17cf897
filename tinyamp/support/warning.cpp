#include "tinyamp/support/warning.h"

#include <iostream>
#include <mutex>

namespace tinyamp {
namespace {
std::mutex mutex;
WarningHandler handler;
}  // namespace

void warn(const std::string& message)
{
    WarningHandler current;
    {
        std::lock_guard lock(mutex);
        current = handler;
    }
    if (current)
        current(message);
    else
        std::cerr << "tinyamp warning: " << message << std::endl;
}

WarningHandler set_warning_handler(WarningHandler new_handler)
{
    std::lock_guard lock(mutex);
    WarningHandler previous = std::move(handler);
    handler = std::move(new_handler);
    return previous;
}

}  // namespace tinyamp
