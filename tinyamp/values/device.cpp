#include "tinyamp/values/device.h"

#include <ostream>

#include "tinyamp/support/error.h"

namespace tinyamp {

const char* device_type_name(DeviceType type) { return type == DeviceType::cpu ? "cpu" : "cuda"; }

std::string Device::str() const
{
    return is_cpu() ? std::string("cpu") : "cuda:" + std::to_string(index_);
}

Device Device::parse(const std::string& text)
{
    if (text == "cpu") return cpu();
    if (text == "cuda") return cuda(0);
    if (text.rfind("cuda:", 0) == 0 && text.size() > 5 &&
        text.find_first_not_of("0123456789", 5) == std::string::npos && text.size() < 9)
        return cuda(std::stoi(text.substr(5)));
    TINYAMP_FAIL(device, "unknown device '", text, "'; write \"cpu\", \"cuda\" or \"cuda:N\"");
}

std::ostream& operator<<(std::ostream& out, const Device& device) { return out << device.str(); }

}  // namespace tinyamp
