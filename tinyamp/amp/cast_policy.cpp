#include "tinyamp/amp/cast_policy.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <vector>

#include "tinyamp/support/op_names.h"
#include "tinyamp/support/error.h"
#include "tinyamp/support/atomic_file.h"

namespace tinyamp::amp {
namespace {

// A name the text format can hold: one word, no whitespace, no '#' (which starts a comment).
bool is_text_word(const std::string& name)
{
    const bool has_space = std::any_of(name.begin(), name.end(), [](unsigned char c) { return std::isspace(c) != 0; });
    return !name.empty() && !has_space && name.find('#') == std::string::npos;
}

// A row for an op that does not exist would never match: said with the op it probably meant.
std::string unknown_op_message(const std::string& op)
{
    return "'" + op + "' is not an op tinyamp has (did you mean '" + nearest_op(op) +
           "'?); a row names a built-in op (kBuiltinOps) or a user Function the program uses";
}

constexpr CastPolicy kAllPolicies[] = {CastPolicy::lower_precision_fp, CastPolicy::fp32, CastPolicy::fp32_set_opt_dtype,
                                       CastPolicy::promote, CastPolicy::banned};

PolicyTable make(const char* name, std::initializer_list<std::pair<const char*, CastPolicy>> rows)
{
    PolicyTable table;
    table.set_name(name);
    for (const auto& [op, policy] : rows) table.set(op, policy);
    return table;
}

}  // namespace

const char* policy_name(CastPolicy policy)
{
    switch (policy) {
    case CastPolicy::lower_precision_fp: return "lower_precision_fp";
    case CastPolicy::fp32: return "fp32";
    case CastPolicy::fp32_set_opt_dtype: return "fp32_set_opt_dtype";
    case CastPolicy::promote: return "promote";
    case CastPolicy::banned: return "banned";
    }
    return "unknown";
}

CastPolicy parse_policy(std::string_view name)
{
    for (CastPolicy p : kAllPolicies)
        if (name == policy_name(p)) return p;
    TINYAMP_FAIL(value, "unknown cast policy '", name, "'; use one of lower_precision_fp, fp32, fp32_set_opt_dtype, promote, banned");
}

// Each row is an op tinyamp has, under the policy PyTorch's list gives it. Where tinyamp's op is
// one fused op and PyTorch's is a composition, the row gives what the composition ends up doing
// (see docs/autocast.md, "Where tinyamp differs").
PolicyTable PolicyTable::cuda()
{
    using enum CastPolicy;
    return make("cuda", {
                            {"conv2d", lower_precision_fp}, {"addmm", lower_precision_fp}, {"matmul", lower_precision_fp},
                            {"mm", lower_precision_fp},     {"linear", lower_precision_fp}, {"bmm", lower_precision_fp},
                            {"scaled_dot_product_attention", lower_precision_fp},
                            {"exp", fp32},                  {"log", fp32},                  {"pow", fp32},
                            {"layer_norm", fp32},           {"nll_loss", fp32},             {"mse_loss", fp32},
                            {"binary_cross_entropy_with_logits", fp32},
                            // PyTorch's cross_entropy is log_softmax (f32 output) + nll_loss (fp32).
                            {"cross_entropy", fp32},
                            {"softmax", fp32_set_opt_dtype}, {"log_softmax", fp32_set_opt_dtype}, {"sum", fp32_set_opt_dtype},
                            {"binary_cross_entropy", banned},
                        });
}

PolicyTable PolicyTable::cpu()
{
    using enum CastPolicy;
    return make("cpu", {
                           {"conv2d", lower_precision_fp}, {"bmm", lower_precision_fp}, {"mm", lower_precision_fp},
                           {"addmm", lower_precision_fp},  {"linear", lower_precision_fp}, {"matmul", lower_precision_fp},
                           {"scaled_dot_product_attention", lower_precision_fp},
                           {"binary_cross_entropy", fp32}, {"mse_loss", fp32},             {"nll_loss", fp32},
                           {"cross_entropy", fp32},        {"binary_cross_entropy_with_logits", fp32},
                           {"stack", promote},             {"cat", promote},
                       });
}

const PolicyTable& PolicyTable::builtin(DeviceType device_type)
{
    static const PolicyTable cpu_table = cpu();
    static const PolicyTable cuda_table = cuda();
    return device_type == DeviceType::cuda ? cuda_table : cpu_table;
}

std::optional<CastPolicy> PolicyTable::lookup(std::string_view op) const
{
    const auto it = entries_.find(std::string(op));
    if (it == entries_.end()) return std::nullopt;
    return it->second;
}

void PolicyTable::set(const std::string& op, CastPolicy policy)
{
    TINYAMP_CHECK(is_text_word(op) && op != "table", value, "op name '", op,
                  "' cannot go in a policy table: names have no whitespace or '#', and 'table' starts the line that names the table");
    TINYAMP_CHECK(is_known_op(op), value, unknown_op_message(op));
    entries_[op] = policy;
}

void PolicyTable::set_name(std::string name)
{
    TINYAMP_CHECK(is_text_word(name), value, "policy table name '", name,
                  "' cannot be written as text: a name is one word, without whitespace or '#'");
    name_ = std::move(name);
}

void PolicyTable::remove(const std::string& op) { entries_.erase(op); }

std::string PolicyTable::to_text() const
{
    std::ostringstream out;
    out << "# tinyamp autocast policy table: one op per line, \"<op> <policy>\"\n"
           "# policies: lower_precision_fp fp32 fp32_set_opt_dtype promote banned; ops not listed run in their input dtypes\n"
        << "table " << name_ << '\n';
    for (CastPolicy p : kAllPolicies)
        for (const auto& [op, policy] : entries_)
            if (policy == p) out << op << ' ' << policy_name(policy) << '\n';
    return out.str();
}

PolicyTable PolicyTable::from_text(const std::string& text)
{
    PolicyTable table;
    std::istringstream in(text);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        const auto hash = line.find('#');
        if (hash != std::string::npos) line.erase(hash);
        std::istringstream words(line);
        std::vector<std::string> w;
        for (std::string word; words >> word;) w.push_back(word);
        if (w.empty()) continue;
        TINYAMP_CHECK(w.size() == 2, io, "policy table line ", number, ": expected \"<op> <policy>\" (or \"table <name>\"), got '", line,
                      "'");
        if (w[0] == "table") {
            table.name_ = w[1];
            continue;
        }
        CastPolicy policy;
        try {
            policy = parse_policy(w[1]);
        } catch (const Error& e) {
            TINYAMP_FAIL(io, "policy table line ", number, ": ", e.message());
        }
        TINYAMP_CHECK(!table.entries_.count(w[0]), io, "policy table line ", number, ": op '", w[0],
                      "' is listed twice; keep one line per op");
        TINYAMP_CHECK(is_known_op(w[0]), io, "policy table line ", number, ": ", unknown_op_message(w[0]));
        table.entries_[w[0]] = policy;
    }
    return table;
}

void PolicyTable::save(const std::string& path) const
{
    // Atomic (temp file, fsync, rename): a failed save leaves the old file as it was.
    try {
        io::write_file_atomically(path, to_text());
    } catch (const Error& e) {
        TINYAMP_FAIL(io, "cannot write policy table: ", e.message());
    }
}

PolicyTable PolicyTable::load(const std::string& path)
{
    // A folder opens fine as an ifstream on Linux and reads as empty: check for a regular file.
    TINYAMP_CHECK(std::filesystem::is_regular_file(path), io, "cannot open policy table '", path, "': ",
                  std::filesystem::exists(path) ? "it is not a regular file" : "no such file");
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    TINYAMP_CHECK(!in.bad(), io, "reading policy table '", path, "' failed");
    return from_text(text.str());
}

std::ostream& operator<<(std::ostream& out, const PolicyTable& table) { return out << table.to_text(); }

}  // namespace tinyamp::amp
