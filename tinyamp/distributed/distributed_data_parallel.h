#pragma once
/// \file
/// torch.nn.parallel.DistributedDataParallel: a model replicated on every rank, whose gradients
/// are averaged over the ranks while backward runs.
///
///     auto ddp = std::make_shared<distributed::DistributedDataParallel>(model);  // rank 0's weights everywhere
///     optim::SGD optimizer(ddp->parameters(), {.lr = 0.05});
///     loss_fn((*ddp)(my_share_of_x), my_share_of_y).backward();  // gradients averaged on the way
///     optimizer.step();                                          // the same step on every rank
///
/// Made from a module, it copies rank 0's parameters and buffers into every rank's and sorts the
/// parameters into buckets of at most `bucket_bytes` (the last parameters first, as their gradients
/// arrive first in backward). A hook on each parameter (register_post_accumulate_grad_hook) counts
/// the gradients that arrived; when a bucket is complete it is averaged at once with
/// all_reduce_gradients, in f32 or compressed (gradients.h), as PyTorch's reducer does. So after
/// backward every rank holds the same average gradients, and a GradScaler works unchanged.
///
/// Every parameter must receive a gradient in every backward (PyTorch's find_unused_parameters is
/// not offered): the next forward reports the ones that did not, instead of hanging.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "tinyamp/nn/module.h"

namespace tinyamp::distributed {

/// How DistributedDataParallel sends gradients.
struct DistributedDataParallelOptions {
    /// Unset: each gradient's dtype (DDP's default). bf16 / f16: PyTorch's bf16_compress_hook /
    /// fp16_compress_hook (gradients.h).
    std::optional<DType> gradient_dtype;
    std::int64_t bucket_bytes = std::int64_t(25) << 20;  ///< DDP's bucket_cap_mb, 25 MiB
};

/// The wrapper module: its one child is the model, named "module" (so its parameters are
/// "module.0.weight", ..., as in PyTorch).
class DistributedDataParallel : public nn::Module {
public:
    /// Wraps \p module: broadcasts rank 0's parameters and buffers, makes the buckets, hooks the
    /// parameters. Every rank must make it, with the same model.
    explicit DistributedDataParallel(std::shared_ptr<nn::Module> module, DistributedDataParallelOptions options = {});
    ~DistributedDataParallel() override;  ///< removes its hooks from the parameters

    /// Runs the model; first checks that the previous backward averaged every bucket (Error(state)
    /// naming the parameters that got no gradient, if not).
    Tensor forward(const Tensor& input) override;
    std::string type_name() const override { return "DistributedDataParallel"; }  ///< as PyTorch prints it
    /// The wrapped model (PyTorch's ddp.module).
    nn::Module& module() { return *module_; }
    /// How many buckets the parameters were sorted into.
    std::size_t bucket_count() const { return buckets_.size(); }

private:
    struct Bucket {
        std::vector<std::size_t> parameters;  // indices into parameters_
        std::size_t arrived = 0;              // gradients that arrived since it was last averaged
        bool averaged = false;                // averaged since the last forward
    };
    void gradient_arrived(std::size_t parameter);
    void check_previous_backward_finished();

    std::shared_ptr<nn::Module> module_;
    DistributedDataParallelOptions options_;
    std::vector<Tensor> parameters_;
    std::vector<std::string> names_;
    std::vector<std::size_t> bucket_of_;   // parameter -> bucket
    std::vector<bool> arrived_;            // parameter -> its gradient arrived in this backward
    std::vector<Bucket> buckets_;
    std::vector<int> hooks_;               // one per parameter
};

}  // namespace tinyamp::distributed
