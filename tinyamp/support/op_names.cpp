#include "tinyamp/support/op_names.h"

#include <mutex>
#include <set>

namespace tinyamp {
namespace {

// The user Functions' names, registered at start-up (static initialization) or on first use.
struct UserOps {
    std::mutex mutex;
    std::set<std::string, std::less<>> names;
};
UserOps& user_ops()
{
    static UserOps ops;
    return ops;
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
    const std::lock_guard lock(user_ops().mutex);
    user_ops().names.emplace(name);
    return true;
}

bool is_known_op(std::string_view name)
{
    if (is_builtin_op(name)) return true;
    const std::lock_guard lock(user_ops().mutex);
    return user_ops().names.find(name) != user_ops().names.end();
}

std::vector<std::string> known_op_names()
{
    std::vector<std::string> names(std::begin(kBuiltinOps), std::end(kBuiltinOps));
    {
        const std::lock_guard lock(user_ops().mutex);
        names.insert(names.end(), user_ops().names.begin(), user_ops().names.end());
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
