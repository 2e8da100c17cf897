#include "tinyamp/nn/module.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "tinyamp/support/grad_mode.h"
#include "tinyamp/tensor/layout.h"
#include "tinyamp/trace/recorder.h"

namespace tinyamp::nn {

void set_data(const Tensor& self, const Tensor& data)
{
    TINYAMP_CHECK(self.defined() && data.defined(), value, "set_data needs two defined tensors");
    TINYAMP_CHECK(self.is_leaf(), state, "set_data: only a leaf tensor (a parameter or buffer) can have its data replaced, but this one "
                                          "was computed by '", self.grad_fn_name(), "'");
    TINYAMP_CHECK(!self.requires_grad() || is_floating_point(data.dtype()), dtype,
                  "set_data: a tensor that requires grad must stay floating point, not ", dtype_name(data.dtype()));
    TensorImpl& impl = *self.impl();
    impl.storage = data.storage();
    impl.shape = data.shape();
    impl.strides = data.strides();
    impl.offset = data.storage_offset();
    impl.dtype = data.dtype();
}

Tensor Module::forward(const Tensor&)
{
    TINYAMP_FAIL(state, type_name(), " does not take a single input: call it with the arguments it documents "
                                     "(a loss takes (input, target))");
}

Tensor Module::operator()(const Tensor& input)
{
    // Only while a trace records: type_name() builds a string, which plain training need not pay for.
    if (!trace::current()) return forward(input);
    const trace::ModuleScope scope(name_, type_name());
    return forward(input);
}

// ---------------------------------------------------------------- registration

void Module::check_new_name(const std::string& name) const
{
    TINYAMP_CHECK(!name.empty() && name.find('.') == std::string::npos, value, type_name(), ": the name '", name,
                  "' is not allowed; names are non-empty and have no '.' (dots join the names of nested modules)");
    auto taken = [&](const auto& list) {
        for (const auto& entry : list)
            if (entry.first == name) return true;
        return false;
    };
    TINYAMP_CHECK(!taken(parameters_) && !taken(buffers_) && !taken(children_), value, type_name(), " already has a member named '",
                  name, "'; give each parameter, buffer and child its own name");
}

Tensor Module::register_parameter(const std::string& name, Tensor value)
{
    check_new_name(name);
    TINYAMP_CHECK(value.defined() && value.is_leaf(), value, type_name(), ": parameter '", name,
                  "' must be a defined leaf tensor (make it with a factory, not from other tensors' ops)");
    value.requires_grad_();
    if (value.name().empty()) value.set_name(name);
    parameters_.emplace_back(name, value);
    return value;
}

Tensor Module::register_buffer(const std::string& name, Tensor value)
{
    check_new_name(name);
    TINYAMP_CHECK(value.defined(), value, type_name(), ": buffer '", name, "' must be a defined tensor");
    if (value.name().empty()) value.set_name(name);
    buffers_.emplace_back(name, value);
    return value;
}

void Module::add_child(const std::string& name, const std::shared_ptr<Module>& module)
{
    check_new_name(name);
    TINYAMP_CHECK(module != nullptr, value, type_name(), ": child module '", name, "' is null; make it with std::make_shared");
    children_.emplace_back(name, module);
    module->name_ = name;
    // Label the child's tensors with their full path, so traces and pictures say "0.weight".
    for (auto& [child_name, t] : module->state_dict()) t.set_name(name + "." + child_name);
}

// ---------------------------------------------------------------- walking the tree

void Module::collect(const std::string& prefix, bool parameters, bool buffers, NamedTensors& out) const
{
    if (parameters)
        for (const auto& [name, t] : parameters_) out.emplace_back(prefix + name, t);
    if (buffers)
        for (const auto& [name, t] : buffers_) out.emplace_back(prefix + name, t);
    for (const auto& [name, child] : children_) child->collect(prefix + name + ".", parameters, buffers, out);
}

NamedTensors Module::named_parameters() const
{
    NamedTensors out;
    collect("", true, false, out);
    return out;
}

NamedTensors Module::named_buffers() const
{
    NamedTensors out;
    collect("", false, true, out);
    return out;
}

NamedTensors Module::state_dict() const
{
    NamedTensors out;
    collect("", true, true, out);
    return out;
}

static std::vector<Tensor> tensors_of(const NamedTensors& named)
{
    std::vector<Tensor> out;
    out.reserve(named.size());
    for (const auto& entry : named) out.push_back(entry.second);
    return out;
}

std::vector<Tensor> Module::parameters() const { return tensors_of(named_parameters()); }
std::vector<Tensor> Module::buffers() const { return tensors_of(named_buffers()); }

std::int64_t Module::num_parameters() const
{
    std::int64_t n = 0;
    for (const Tensor& p : parameters()) n += p.numel();
    return n;
}

// ---------------------------------------------------------------- state

void Module::load_state_dict(const NamedTensors& state, bool strict)
{
    std::map<std::string, Tensor> given;
    for (const auto& [name, t] : state) {
        TINYAMP_CHECK(t.defined(), value, "load_state_dict: the tensor for '", name, "' is undefined");
        TINYAMP_CHECK(given.emplace(name, t).second, value, "load_state_dict: '", name, "' appears twice in the state");
    }
    const NamedTensors own = state_dict();
    std::set<std::string> own_names;
    std::string missing, size_mismatch;
    for (const auto& [name, t] : own) {
        own_names.insert(name);
        auto it = given.find(name);
        if (it == given.end()) {
            missing += (missing.empty() ? "\"" : ", \"") + name + "\"";
        } else if (it->second.shape() != t.shape()) {
            size_mismatch += "\n\tsize mismatch for " + name + ": copying a param with shape " + shape_str(it->second.shape()) +
                             " from checkpoint, the shape in current model is " + shape_str(t.shape()) + ".";
        }
    }
    std::string unexpected;
    for (const auto& [name, t] : state)
        if (!own_names.count(name)) unexpected += (unexpected.empty() ? "\"" : ", \"") + name + "\"";

    std::string errors;
    if (strict && !missing.empty()) errors += "\n\tMissing key(s) in state_dict: " + missing + ".";
    if (strict && !unexpected.empty()) errors += "\n\tUnexpected key(s) in state_dict: " + unexpected + ".";
    errors += size_mismatch;
    TINYAMP_CHECK(errors.empty(), value, "Error(s) in loading state_dict for ", type_name(), ":", errors,
                  "\n(nothing was loaded; the model is unchanged)");

    // Everything checked: now copy. Conversions cannot fail, so no half-loaded model.
    NoGradGuard no_grad;
    for (const auto& [name, t] : own) {
        auto it = given.find(name);
        if (it != given.end()) layout::copy_into(t, it->second);
    }
}

Module& Module::train(bool mode)
{
    training_ = mode;
    for (auto& entry : children_) entry.second->train(mode);
    return *this;
}

Module& Module::to(DType dtype)
{
    TINYAMP_CHECK(is_floating_point(dtype), dtype, type_name(), ".to(", dtype_name(dtype),
                  "): a module converts to a floating point dtype (f64, f32, f16 or bf16)");
    for (const Tensor& t : tensors_of(state_dict())) {
        if (!is_floating_point(t.dtype())) continue;  // e.g. BatchNorm's num_batches_tracked stays i64
        set_data(t, layout::convert(t, dtype));
        if (t.grad().defined()) t.set_grad(layout::convert(t.grad(), dtype));
    }
    return *this;
}

void Module::zero_grad()
{
    for (const Tensor& p : parameters()) p.set_grad(Tensor());
}

// ---------------------------------------------------------------- printing

std::string Module::to_string() const
{
    // As PyTorch's Module.__repr__: one line for settings alone, else one indented line each for the
    // settings and every child, whose own lines are indented under ours (_addindent).
    std::vector<std::string> lines;
    std::istringstream extra(extra_repr());
    for (std::string line; std::getline(extra, line);) lines.push_back(line);
    const bool one_line = lines.size() == 1 && children_.empty();
    for (const auto& [name, child] : children_) {
        std::string indented;
        for (char c : child->to_string()) {
            indented += c;
            if (c == '\n') indented += "  ";
        }
        lines.push_back("(" + name + "): " + indented);
    }
    std::string out = type_name() + "(";
    if (one_line) {
        out += lines[0];
    } else if (!lines.empty()) {
        for (const std::string& line : lines) out += "\n  " + line;
        out += "\n";
    }
    return out + ")";
}

std::string Module::py_float(double value)
{
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    // The shortest digits that read back to `value`, then Python's layout for them: positional
    // for exponents -4..15 ("0.0001", "1.0"), else scientific with two exponent digits ("1e-05").
    // (std::to_chars would give them directly, but Emscripten 3.1.6's libc++, the web build's, has
    // it for integers only: so the fewest digits after the point that read back, 0 to 16.)
    std::string text;  // "d.ddde-XX" or "de+XX"
    for (int decimals = 0; decimals <= 16; ++decimals) {
        char buffer[32];
        const int length = std::snprintf(buffer, sizeof buffer, "%.*e", decimals, std::abs(value));
        text.assign(buffer, std::size_t(std::clamp(length, 0, int(sizeof buffer) - 1)));
        if (std::strtod(buffer, nullptr) == std::abs(value)) break;
    }
    const std::size_t e = text.find('e');
    std::string digits = text.substr(0, e);
    if (digits.size() > 1) digits.erase(1, 1);  // drop the point
    const int exponent = std::stoi(text.substr(e + 1));
    std::string out = std::signbit(value) ? "-" : "";
    if (exponent < -4 || exponent >= 16) {
        out += digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "");
        const std::string power = std::to_string(std::abs(exponent));
        return out + "e" + (exponent < 0 ? "-" : "+") + (power.size() < 2 ? "0" : "") + power;
    }
    if (exponent < 0) return out + "0." + std::string(std::size_t(-exponent - 1), '0') + digits;
    const auto point = std::size_t(exponent) + 1;
    if (digits.size() <= point) return out + digits + std::string(point - digits.size(), '0') + ".0";
    return out + digits.substr(0, point) + "." + digits.substr(point);
}

}  // namespace tinyamp::nn
