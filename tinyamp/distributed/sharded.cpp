#include "tinyamp/distributed/sharded.h"

#include <algorithm>
#include <numeric>

#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/gradients.h"
#include "tinyamp/distributed/mpi_waiting.h"
#include "tinyamp/distributed/process_group.h"
#include "tinyamp/support/error.h"
#include "tinyamp/tensor/factories.h"

namespace tinyamp::distributed {

std::optional<bool> ShardedGradScaler::agree_on_found_inf(std::optional<bool> local_found_inf)
{
    const Tensor found = full({1}, local_found_inf.value_or(false) ? 1.0 : 0.0, DType::f32);
    all_reduce(found, ReduceOp::MAX);
    return found.item() != 0.0;
}

ZeroRedundancyOptimizer::ZeroRedundancyOptimizer(std::vector<Tensor> parameters,
                                                 std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)> make_optimizer)
    : parameters_(std::move(parameters)), owner_(parameters_.size(), 0)
{
    detail::check_initialized("ZeroRedundancyOptimizer");
    TINYAMP_CHECK(static_cast<bool>(make_optimizer), value, "ZeroRedundancyOptimizer: make_optimizer is empty");
    // The largest parameters first, each to the rank that holds the fewest bytes so far (ties: the
    // lowest rank); the same on every rank, since every rank sees the same sizes.
    std::vector<std::size_t> order(parameters_.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return parameters_[a].nbytes() > parameters_[b].nbytes(); });
    std::vector<std::int64_t> held(std::size_t(get_world_size()), 0);
    for (std::size_t k : order) {
        const auto fewest = std::min_element(held.begin(), held.end());
        owner_[k] = int(fewest - held.begin());
        *fewest += parameters_[k].nbytes();
    }
    std::vector<Tensor> shard;
    for (std::size_t k = 0; k < parameters_.size(); ++k)
        if (owner_[k] == get_rank()) shard.push_back(parameters_[k]);
    if (!shard.empty()) local_ = make_optimizer(shard);
}

void ZeroRedundancyOptimizer::reduce_gradients(bool keep_only_own_shard)
{
    all_reduce_gradients(parameters_);
    if (!keep_only_own_shard) return;
    for (std::size_t k = 0; k < parameters_.size(); ++k)
        if (owner_[k] != get_rank()) parameters_[k].set_grad(Tensor());
}

optim::Optimizer& ZeroRedundancyOptimizer::local_optimizer()
{
    TINYAMP_CHECK(local_ != nullptr, state, "ZeroRedundancyOptimizer: ", rank_name(), " owns no parameter (there are ", parameters_.size(),
                  " parameters for ", get_world_size(), " ranks), so it has no optimizer");
    return *local_;
}

void ZeroRedundancyOptimizer::sync_parameters()
{
    for (std::size_t k = 0; k < parameters_.size(); ++k) broadcast_parameters({parameters_[k]}, owner_[k]);
}

void ZeroRedundancyOptimizer::step()
{
    reduce_gradients();
    if (local_) local_->step();
    sync_parameters();
}

void ZeroRedundancyOptimizer::zero_grad()
{
    for (const Tensor& p : parameters_) p.set_grad(Tensor());
}

std::int64_t ZeroRedundancyOptimizer::optimizer_state_bytes() const { return local_ ? distributed::optimizer_state_bytes(*local_) : 0; }

std::int64_t optimizer_state_bytes(const optim::Optimizer& optimizer)
{
    std::int64_t bytes = 0;
    for (const optim::ParamGroup& group : optimizer.param_groups())
        for (const Tensor& p : group.params)
            for (const auto& [name, t] : optimizer.state(p)) bytes += t.defined() ? t.nbytes() : 0;
    return bytes;
}

}  // namespace tinyamp::distributed
