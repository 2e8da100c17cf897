#pragma once
// Autocast policies as data: a table maps an op's name to what autocast does with its inputs.
// Ops that are not in the table run in whatever dtypes their inputs have.

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "tinyamp/core/device.h"

namespace tinyamp::amp {

enum class CastPolicy {
    lower_precision_fp,  ///< cast eligible inputs to the autocast dtype (f16/bf16): matmul, conv, linear
    fp32,                ///< cast eligible inputs to f32: ops that lose too much in 16 bits (exp, log, losses)
    fp32_set_opt_dtype,  ///< inputs untouched, but the op's dtype argument is set to f32 (softmax, sum)
    promote,             ///< cast eligible inputs to the widest of them (cat, stack)
    banned,              ///< refused under autocast (binary_cross_entropy on CUDA)
};

const char* policy_name(CastPolicy policy);
/// "lower_precision_fp", "fp32", ... ; throws Error(value) listing the accepted names.
CastPolicy parse_policy(std::string_view name);

class PolicyTable {
public:
    /// PyTorch's CUDA lists (autocast_mode.cpp), restricted to the ops tinyamp has.
    static PolicyTable cuda();
    /// PyTorch's CPU lists, restricted the same way. softmax and sum are not intercepted on CPU.
    static PolicyTable cpu();
    /// The built-in table of a device type.
    static const PolicyTable& builtin(DeviceType device_type);

    std::optional<CastPolicy> lookup(std::string_view op) const;
    /// Puts `op` under `policy` (moving it if it was elsewhere).
    void set(const std::string& op, CastPolicy policy);
    /// Takes `op` out of the table: it then runs in its input dtypes.
    void remove(const std::string& op);
    const std::map<std::string, CastPolicy>& entries() const { return entries_; }
    const std::string& name() const { return name_; }
    void set_name(std::string name) { name_ = std::move(name); }

    /// The text format, one op per line (see docs/autocast.md):
    ///   # comment
    ///   table cuda
    ///   matmul lower_precision_fp
    std::string to_text() const;
    /// Parses the text format; throws Error(io) naming the line and what is wrong with it.
    static PolicyTable from_text(const std::string& text);
    /// Writes atomically (a temporary file, then rename): a failed save leaves the old file.
    void save(const std::string& path) const;
    static PolicyTable load(const std::string& path);

    bool operator==(const PolicyTable& other) const = default;

private:
    std::string name_ = "custom";
    std::map<std::string, CastPolicy> entries_;
};

std::ostream& operator<<(std::ostream& out, const PolicyTable& table);

}  // namespace tinyamp::amp
