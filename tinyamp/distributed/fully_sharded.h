#pragma once
/// \file
/// The idea of PyTorch's FullyShardedDataParallel with its MixedPrecision policy, not its
/// implementation: one flat unit for the whole model, no prefetching, no nested wrapping.
///
///     auto fsdp = std::make_shared<distributed::FullyShardedDataParallel>(
///         model, distributed::MixedPrecision{.param_dtype = bf16, .reduce_dtype = f32});
///     optim::SGD optimizer(fsdp->parameters(), {.lr = 0.05});  // this rank's f32 shard, nothing else
///     distributed::ShardedGradScaler scaler("cpu");             // (bf16 needs no scaler; f16 does)
///     optimizer.zero_grad();
///     Tensor logits = (*fsdp)(my_share_of_x);                   // gathers the model in bf16, runs it
///     scaler.scale(loss_fn(logits.to(f32), my_share_of_y)).backward();  // reduce-scatters, frees
///     scaler.step(optimizer);                                   // found-inf agreed by every rank
///     scaler.update();
///
/// Made from a module, it copies rank 0's parameters and buffers into every rank's, flattens the
/// parameters into one f32 vector padded with zeros to a multiple of the world size, keeps the
/// rank's 1/world of it (the "flat parameter" shard: the f32 master weights, a leaf that requires
/// grad, its only parameter) and frees the module's own parameters (they are left empty, with 0
/// elements). Each forward casts the shard to `param_dtype`, all-gathers the shards, and points the
/// module's parameters at views of the gathered vector, so the model really runs on bf16 or f16
/// weights. When backward has stored every parameter's gradient, they are flattened in
/// `reduce_dtype`, divided by the world size and reduce-scattered; the rank's slice becomes the
/// shard's f32 gradient (added to one already there, so several backwards accumulate), and the
/// gathered parameters and their gradients are freed. Between steps a rank holds its shard, its
/// gradient and its optimizer state: about 1/world of a replicated model's.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tinyamp/nn/module.h"

namespace tinyamp::distributed {

/// The dtypes FullyShardedDataParallel uses (torch.distributed.fsdp.MixedPrecision). Unset fields
/// keep full precision, as in PyTorch.
struct MixedPrecision {
    /// The dtype the parameters are gathered in and the forward and backward run in. Unset: f32.
    std::optional<DType> param_dtype;
    /// The dtype the gradients are reduce-scattered (and summed) in. Unset: param_dtype's, as
    /// PyTorch does (so bf16 parameters alone also reduce in bf16); f32 if that is unset too.
    std::optional<DType> reduce_dtype;
    /// The dtype the module's floating point buffers are converted to, once, when it is wrapped
    /// (buffers are not sharded). Unset: they keep theirs.
    std::optional<DType> buffer_dtype;
};

/// The wrapper module (torch.distributed.fsdp.FullyShardedDataParallel, one flat unit): its one
/// parameter, "flat_param", is this rank's shard of the f32 master weights. The wrapped model is
/// not its registered child (so that parameters() is the shard alone, as PyTorch's FSDP lists its
/// flat parameter); it takes the wrapper's train/eval mode at each forward.
class FullyShardedDataParallel : public nn::Module {
public:
    /// Wraps \p module, whose parameters must all be f32 and require grad (Error(dtype) /
    /// Error(value) naming the first that is not; Error(value) for a module without parameters).
    /// The dtypes of \p mixed_precision must be f64, f32, f16 or bf16 (Error(dtype) naming the
    /// field). Every rank must make it, with the same model.
    explicit FullyShardedDataParallel(std::shared_ptr<nn::Module> module, MixedPrecision mixed_precision = {});
    ~FullyShardedDataParallel() override;  ///< removes its hooks from the module's parameters

    /// Gathers the parameters in param_dtype, converts a floating point \p input to it (PyTorch's
    /// root module does too) and runs the model. Under NoGradGuard (or whenever the output needs
    /// no backward) it frees the gathered parameters at once. Error(state) if the previous backward
    /// stopped half way (names the parameters that got no gradient: every one must be in the loss).
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "FullyShardedDataParallel"; }  ///< as PyTorch prints it

    /// The wrapped model (PyTorch's fsdp.module). Outside forward and backward its parameters are
    /// empty; call it through the wrapper.
    nn::Module& module() { return *module_; }
    /// This rank's shard of the flat f32 parameter: what the optimizer steps (= parameters()[0]).
    const Tensor& flat_parameter() const { return shard_; }
    /// The policy it was made with.
    const MixedPrecision& mixed_precision() const { return mixed_precision_; }
    /// The module's parameters in f32, whole, named as in the module ("0.weight"): every rank's
    /// shard all-gathered (PyTorch's full state dict). A collective: every rank must call it.
    nn::NamedTensors full_parameters() const;

private:
    void gather_parameters();
    void gradient_arrived(std::size_t parameter);
    void reduce_scatter_gradients();
    void free_parameters();
    void check_previous_backward_finished();

    std::shared_ptr<nn::Module> module_;
    MixedPrecision mixed_precision_;
    std::vector<Tensor> parameters_;  // the module's, in named_parameters() order, each once
    std::vector<std::string> names_;
    std::vector<Shape> shapes_;
    std::int64_t padded_numel_ = 0;   // every parameter's elements, plus zeros to a multiple of the world size
    Tensor shard_;                    // this rank's slice of the flat f32 parameter
    std::uint64_t forwards_ = 0;      // forwards so far
    // Which forward's gathered parameters the module points at (0: freed); shared with the
    // outputs' backward check.
    std::shared_ptr<std::uint64_t> gathered_forward_ = std::make_shared<std::uint64_t>(0);
    std::vector<bool> arrived_;       // parameter -> its gradient arrived in this backward
    std::size_t arrived_count_ = 0;
    std::vector<int> hooks_;          // one per parameter
};

}  // namespace tinyamp::distributed
