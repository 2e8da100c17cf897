#include "tinyamp/distributed/distributed_data_parallel.h"

#include <sstream>

#include "tinyamp/distributed/gradients.h"
#include "tinyamp/distributed/mpi_waiting.h"
#include "tinyamp/support/error.h"

namespace tinyamp::distributed {

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<nn::Module> module, DistributedDataParallelOptions options)
    : module_(std::move(module)), options_(options)
{
    detail::check_initialized("DistributedDataParallel");
    TINYAMP_CHECK(module_ != nullptr, value, "DistributedDataParallel: the module is null");
    TINYAMP_CHECK(options_.bucket_bytes > 0, value, "DistributedDataParallel: bucket_bytes must be positive, got ", options_.bucket_bytes);
    register_module("module", module_);
    std::vector<Tensor> state = module_->parameters();
    for (const Tensor& b : module_->buffers()) state.push_back(b);
    broadcast_parameters(state, 0);  // every replica starts as rank 0's
    for (const auto& [name, p] : module_->named_parameters()) {
        parameters_.push_back(p);
        names_.push_back("module." + name);
    }
    // Buckets from the last parameter back: backward reaches the last layers first.
    bucket_of_.assign(parameters_.size(), 0);
    arrived_.assign(parameters_.size(), false);
    std::int64_t bytes = 0;
    for (std::size_t k = parameters_.size(); k-- > 0;) {
        const std::int64_t size = parameters_[k].numel() * dtype_size(options_.gradient_dtype.value_or(parameters_[k].dtype()));
        if (buckets_.empty() || bytes + size > options_.bucket_bytes) {
            buckets_.emplace_back();
            bytes = 0;
        }
        buckets_.back().parameters.push_back(k);
        bucket_of_[k] = buckets_.size() - 1;
        bytes += size;
    }
    for (std::size_t k = 0; k < parameters_.size(); ++k)
        hooks_.push_back(parameters_[k].register_post_accumulate_grad_hook([this, k](const Tensor&) { gradient_arrived(k); }));
}

DistributedDataParallel::~DistributedDataParallel()
{
    for (std::size_t k = 0; k < hooks_.size(); ++k) parameters_[k].remove_post_accumulate_grad_hook(hooks_[k]);
}

void DistributedDataParallel::gradient_arrived(std::size_t parameter)
{
    if (arrived_[parameter]) return;  // a second backward before the bucket completed: counted once
    arrived_[parameter] = true;
    Bucket& bucket = buckets_[bucket_of_[parameter]];
    if (++bucket.arrived < bucket.parameters.size()) return;
    std::vector<Tensor> members;
    for (std::size_t k : bucket.parameters) members.push_back(parameters_[k]);
    all_reduce_gradients(members, {.dtype = options_.gradient_dtype, .bucket_bytes = options_.bucket_bytes});
    bucket.arrived = 0;
    for (std::size_t k : bucket.parameters) arrived_[k] = false;
    bucket.averaged = true;
}

// A backward ran since the last forward when some bucket was averaged or got a gradient; then
// every bucket must have been averaged. A parameter of a bucket that was not, and whose gradient
// did not arrive, took no part in the loss.
void DistributedDataParallel::check_previous_backward_finished()
{
    bool backward_ran = false;
    for (const Bucket& bucket : buckets_) backward_ran = backward_ran || bucket.averaged || bucket.arrived > 0;
    std::ostringstream missing;
    for (const Bucket& bucket : buckets_)
        if (backward_ran && !bucket.averaged)
            for (std::size_t k : bucket.parameters)
                if (!arrived_[k]) missing << ' ' << names_[k];
    for (Bucket& bucket : buckets_) bucket = Bucket{bucket.parameters, 0, false};
    arrived_.assign(arrived_.size(), false);
    const std::string names = missing.str();
    TINYAMP_CHECK(names.empty(), state, "DistributedDataParallel: in the last backward these parameters received no gradient, so their "
                  "bucket was never averaged:", names, ". Every parameter must take part in the loss (PyTorch's find_unused_parameters "
                  "is not offered); leave unused layers out of the model");
}

Tensor DistributedDataParallel::forward(const Tensor& input)
{
    check_previous_backward_finished();
    return (*module_)(input);
}

}  // namespace tinyamp::distributed
