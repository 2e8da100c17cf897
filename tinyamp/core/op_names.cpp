#include "tinyamp/core/op_names.h"

#include <algorithm>
#include <mutex>
#include <set>

namespace tinyamp {
namespace {

// The user Functions' names; registered at start-up (static initialization) or on first use.
std::set<std::string, std::less<>>& user_ops(std::unique_lock<std::mutex>& lock)
{
    static std::mutex mutex;
    static std::set<std::string, std::less<>> names;
    lock = std::unique_lock(mutex);
    return names;
}

// Levenshtein distance: insertions, deletions and substitutions.
std::size_t edit_distance(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace

bool register_op_name(std::string_view name)
{
    std::unique_lock<std::mutex> lock;
    user_ops(lock).emplace(name);
    return true;
}

bool is_known_op(std::string_view name)
{
    if (std::find(std::begin(kBuiltinOps), std::end(kBuiltinOps), name) != std::end(kBuiltinOps)) return true;
    std::unique_lock<std::mutex> lock;
    const auto& users = user_ops(lock);
    return users.find(name) != users.end();
}

std::vector<std::string> known_op_names()
{
    std::vector<std::string> names(std::begin(kBuiltinOps), std::end(kBuiltinOps));
    {
        std::unique_lock<std::mutex> lock;
        for (const std::string& name : user_ops(lock)) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

std::string nearest_op(std::string_view name)
{
    std::string best;
    std::size_t best_distance = std::string::npos;
    for (const std::string& op : known_op_names()) {
        const std::size_t d = edit_distance(name, op);
        if (d < best_distance) {
            best = op;
            best_distance = d;
        }
    }
    return best;
}

}  // namespace tinyamp
