#pragma once
// Adam and AdamW, as torch.optim.Adam / AdamW (no amsgrad). Per parameter: step t, the first
// moment m ("exp_avg") and the second moment v ("exp_avg_sq"), all f32 like the master weights.
//
//   m = b1 m + (1 - b1) g          v = b2 v + (1 - b2) g^2
//   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
//
// Adam's weight_decay is L2 (g += wd p, so it is scaled by 1/sqrt(v) too); AdamW's is decoupled
// (p *= 1 - lr wd, before the update), the fix of Loshchilov & Hutter.

#include "tinyamp/optim/optimizer.h"

namespace tinyamp::optim {

struct AdamOptions {
    double lr = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double weight_decay = 0.0;
};

struct AdamWOptions {
    double lr = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double weight_decay = 1e-2;
};

class Adam : public Optimizer {
public:
    Adam(std::vector<Tensor> params, AdamOptions options = {});
    /// Several groups, each with its own lr (options.lr for a group without one); the other
    /// options are shared.
    Adam(std::vector<ParamGroup> groups, AdamOptions options = {});
    std::string type_name() const override { return decoupled_ ? "AdamW" : "Adam"; }

protected:
    void apply_update() override;
    Adam(std::vector<ParamGroup> groups, AdamOptions options, bool decoupled_weight_decay);
    std::map<std::string, double> options() const override;
    void set_options(const std::map<std::string, double>& options) override;
    std::vector<std::string> state_names() const override { return {"step", "exp_avg", "exp_avg_sq"}; }

private:
    AdamOptions options_;
    bool decoupled_;
};

class AdamW : public Adam {
public:
    AdamW(std::vector<Tensor> params, AdamWOptions options = {});
    AdamW(std::vector<ParamGroup> groups, AdamWOptions options = {});
};

}  // namespace tinyamp::optim
