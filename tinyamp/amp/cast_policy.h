#pragma once
/// \file
/// Autocast policies as data: a table maps an op's name to what autocast does with its inputs.
///
/// Ops that are not in the table run in whatever dtypes their inputs have. The five policies
/// are the lists of PyTorch's autocast_mode.cpp; docs/autocast.md compares them with PyTorch.

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "tinyamp/values/device.h"

namespace tinyamp::amp {

/// What autocast does with an op's inputs (one of PyTorch's autocast lists).
enum class CastPolicy {
    lower_precision_fp,  ///< cast eligible inputs to the autocast dtype (f16/bf16): matmul, conv, linear
    fp32,                ///< cast eligible inputs to f32: ops that lose too much in 16 bits (exp, log, losses)
    fp32_set_opt_dtype,  ///< inputs untouched, but the op's dtype argument is set to f32 (softmax, sum)
    promote,             ///< cast eligible inputs to the widest of them (cat, stack)
    banned,              ///< refused under autocast (binary_cross_entropy on CUDA)
};

/// The policy's name as the text format and traces write it: "lower_precision_fp", "fp32", ...
const char* policy_name(CastPolicy policy);
/// The policy named `name` ("lower_precision_fp", "fp32", ...); throws Error(value) listing the
/// accepted names.
CastPolicy parse_policy(std::string_view name);

/// A policy table: op name to CastPolicy. Autocast uses the thread's table for each device
/// type (get_autocast_table; a region may install its own), so students can change what is
/// cast without rebuilding. Tables read and write a small text format (to_text, save, load).
class PolicyTable {
public:
    /// PyTorch's CUDA lists (autocast_mode.cpp), restricted to the ops tinyamp has.
    static PolicyTable cuda();
    /// PyTorch's CPU lists, restricted the same way. softmax and sum are not intercepted on CPU.
    static PolicyTable cpu();
    /// The built-in table of a device type.
    static const PolicyTable& builtin(DeviceType device_type);

    /// The policy of `op`, or nullopt when the table does not list it.
    std::optional<CastPolicy> lookup(std::string_view op) const;
    /// Puts `op` under `policy` (moving it if it was elsewhere). Throws Error(value) for a name
    /// the text format cannot hold: empty, with whitespace or '#', or "table".
    void set(const std::string& op, CastPolicy policy);
    /// Takes `op` out of the table: it then runs in its input dtypes.
    void remove(const std::string& op);
    /// Every listed op with its policy, sorted by op name.
    const std::map<std::string, CastPolicy>& entries() const { return entries_; }
    /// "cuda" or "cpu" for the built-in tables, "custom" for a new one; the `table` line of the
    /// text format.
    const std::string& name() const { return name_; }
    /// Renames the table. Error(value) for an empty name or one with whitespace or '#', which
    /// could not be read back from the text format.
    void set_name(std::string name);

    /// The text format, one op per line (see docs/autocast.md):
    /// \verbatim
    ///   # comment
    ///   table cuda
    ///   matmul lower_precision_fp
    /// \endverbatim
    /// to_text() writes two comment lines, the `table` line, then the ops grouped by policy.
    std::string to_text() const;
    /// Parses the text format (comments and blank lines skipped; no `table` line: "custom");
    /// throws Error(io) naming the line and what is wrong with it (an unknown policy, a line that
    /// is not two words, an op listed twice).
    static PolicyTable from_text(const std::string& text);
    /// Writes atomically (a temporary file, then rename): a failed save leaves the old file.
    /// Throws Error(io) when the file cannot be written.
    void save(const std::string& path) const;
    /// Reads a file written by save() (or by hand). Throws Error(io) for a missing file, a
    /// folder, a read failure, or any error from_text() reports.
    static PolicyTable load(const std::string& path);

    /// Equal names and equal entries.
    bool operator==(const PolicyTable& other) const = default;

private:
    std::string name_ = "custom";
    std::map<std::string, CastPolicy> entries_;
};

/// Writes table.to_text().
std::ostream& operator<<(std::ostream& out, const PolicyTable& table);

}  // namespace tinyamp::amp
