#include "tinyamp/optim/optimizer.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "tinyamp/tensor/layout.h"
#include "tinyamp/trace/op_timing.h"

namespace tinyamp::optim {

void detail::check_non_negative(const char* what, double x)
{
    TINYAMP_CHECK(x >= 0, value, "Invalid ", what, ": ", x, " (it must be >= 0)");
}

namespace {

std::string join(const std::vector<std::string>& names)
{
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

}  // namespace

Optimizer::Optimizer(std::vector<ParamGroup> groups, double default_lr) : groups_(std::move(groups))
{
    std::set<const TensorImpl*> seen;
    for (ParamGroup& g : groups_) {
        if (std::isnan(g.lr)) g.lr = default_lr;
        detail::check_non_negative("learning rate", g.lr);
        for (const Tensor& p : g.params) {
            TINYAMP_CHECK(p.defined() && p.is_leaf() && p.requires_grad(), value,
                          "an optimizer needs leaf tensors that require grad (parameters); call requires_grad_() on them");
            TINYAMP_CHECK(seen.insert(p.impl().get()).second, value, "some parameters appear more than once in the optimizer's ",
                          "parameter groups ('", p.name(), "'); give each parameter once");
        }
    }
    TINYAMP_CHECK(!seen.empty(), value, "optimizer got an empty parameter list");
}

void Optimizer::step()
{
    ++step_calls_;
    const auto timed = trace::TimedPiece::named([&] { return type_name() + ".step"; });  // trace/op_timing.h
    apply_update();
}

void Optimizer::zero_grad()
{
    for (const ParamGroup& g : groups_)
        for (const Tensor& p : g.params) p.set_grad(Tensor());
}

const std::map<std::string, Tensor>& Optimizer::state(const Tensor& param) const
{
    static const std::map<std::string, Tensor> empty;
    std::size_t index = 0;
    for (const ParamGroup& g : groups_)
        for (const Tensor& p : g.params) {
            if (p.is_same(param)) {
                auto it = state_.find(index);
                return it == state_.end() ? empty : it->second;
            }
            ++index;
        }
    TINYAMP_FAIL(value, "that tensor is not one of this optimizer's parameters");
}

OptimizerStateDict Optimizer::state_dict() const
{
    OptimizerStateDict sd;
    sd.type = type_name();
    std::int64_t index = 0;
    for (const ParamGroup& g : groups_) {
        ParamGroupState group{options(), {}};
        group.options["lr"] = g.lr;
        for (std::size_t i = 0; i < g.params.size(); ++i) group.params.push_back(index++);
        sd.param_groups.push_back(std::move(group));
    }
    for (const auto& [i, entries] : state_)
        for (const auto& [name, t] : entries) sd.state[std::int64_t(i)][name] = layout::clone(t);
    return sd;
}

std::map<std::int64_t, std::size_t> Optimizer::check_loaded_groups(const OptimizerStateDict& sd) const
{
    TINYAMP_CHECK(sd.type == type_name(), value, "loaded state dict is for ", sd.type, ", but this optimizer is ", type_name(),
                  "; make the same kind of optimizer before loading");
    TINYAMP_CHECK(sd.param_groups.size() == groups_.size(), value, "loaded state dict has ", sd.param_groups.size(),
                  " parameter groups, but the optimizer has ", groups_.size());
    std::vector<std::string> keys{"lr"};
    for (const auto& [key, value] : options()) keys.push_back(key);
    std::map<std::int64_t, std::size_t> index_of;  // saved id -> our parameter index, by position
    for (std::size_t g = 0; g < groups_.size(); ++g) {
        const ParamGroupState& saved = sd.param_groups[g];
        TINYAMP_CHECK(saved.params.size() == groups_[g].params.size(), value,
                      "loaded state dict contains a parameter group that doesn't match the size of optimizer's group: group ", g,
                      " has ", saved.params.size(), " parameters in the state dict and ", groups_[g].params.size(), " here");
        for (const auto& [key, value] : saved.options) {
            TINYAMP_CHECK(std::find(keys.begin(), keys.end(), key) != keys.end(), value, "loaded state dict: group ", g, " has option '",
                          key, "', which ", type_name(), " does not have (it has ", join(keys), ")");
            // Only lr is per group here; the other hyperparameters are shared, so groups must agree.
            const auto first = sd.param_groups[0].options.find(key);
            TINYAMP_CHECK(g == 0 || key == "lr" || (first != sd.param_groups[0].options.end() && first->second == value), value,
                          "loaded state dict: group ", g, " has ", key, " = ", value, " but group 0 has another value; tinyamp's ",
                          type_name(), " shares every option except lr between its groups");
        }
        TINYAMP_CHECK(saved.options.count("lr"), value, "loaded state dict: group ", g, " has no lr");
        detail::check_non_negative("learning rate", saved.options.at("lr"));
        for (const std::int64_t id : saved.params)
            TINYAMP_CHECK(index_of.emplace(id, index_of.size()).second, value, "loaded state dict lists parameter ", id, " twice in its groups");
    }
    return index_of;
}

const Tensor& Optimizer::param_at(std::size_t index) const
{
    for (const ParamGroup& g : groups_) {
        if (index < g.params.size()) return g.params[index];
        index -= g.params.size();
    }
    TINYAMP_FAIL(state, "optimizer parameter index out of range");  // unreachable: indices come from the groups
}

Optimizer::State Optimizer::loaded_state(const OptimizerStateDict& sd, const std::map<std::int64_t, std::size_t>& index_of) const
{
    const std::vector<std::string> names = state_names();
    State next;
    for (const auto& [id, entries] : sd.state) {
        const auto where = index_of.find(id);
        TINYAMP_CHECK(where != index_of.end(), value, "loaded state dict has state for parameter ", id,
                      ", which none of its parameter groups lists");
        const std::size_t i = where->second;
        const Tensor& param = param_at(i);
        for (const std::string& name : names)
            TINYAMP_CHECK(entries.empty() || entries.count(name), value, "loaded state of parameter ", id, " has no '", name, "'; ",
                          type_name(), " keeps ", join(names), " together");
        for (const auto& [name, t] : entries) {
            TINYAMP_CHECK(std::find(names.begin(), names.end(), name) != names.end(), value, "loaded state dict has state '", name,
                          "', which ", type_name(), " does not keep (it keeps ", join(names), ")");
            TINYAMP_CHECK(t.defined() && is_floating_point(t.dtype()), value, "loaded state '", name, "' of parameter ", id,
                          " must be a floating point tensor");
            // "step" is a 0-d f32 tensor, as in PyTorch; the rest is shaped and typed like the parameter.
            const bool step = name == "step";
            const Shape& want = step ? Shape{} : param.shape();
            TINYAMP_CHECK(t.shape() == want, shape, "loaded state '", name, "' of parameter ", id, " has shape ", shape_str(t.shape()),
                          ", but it must be ", shape_str(want), " (the checkpoint is from another model)");
            const Tensor copy = layout::clone(layout::convert(t, step ? DType::f32 : param.dtype()));
            next[i][name] = step ? copy : layout::to_device(copy, param.device());
        }
    }
    return next;
}

void Optimizer::load_state_dict(const OptimizerStateDict& sd)
{
    // 1. Check everything and build the new state aside; nothing of this optimizer changes yet.
    State next = loaded_state(sd, check_loaded_groups(sd));
    // 2. Commit. set_options checks its values before it changes anything, so it goes first.
    std::map<std::string, double> shared = sd.param_groups.empty() ? options() : sd.param_groups[0].options;
    shared.erase("lr");
    set_options(shared);
    for (std::size_t g = 0; g < groups_.size(); ++g) groups_[g].lr = sd.param_groups[g].options.at("lr");
    state_ = std::move(next);
}

}  // namespace tinyamp::optim
