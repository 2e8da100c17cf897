#include "tinyamp/distributed/fully_sharded.h"

#include <sstream>

#include "tinyamp/distributed/collective_trace.h"
#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/gradients.h"
#include "tinyamp/distributed/mpi_waiting.h"
#include "tinyamp/distributed/process_group.h"
#include "tinyamp/ops/elementwise.h"
#include "tinyamp/ops/function.h"
#include "tinyamp/ops/join.h"
#include "tinyamp/support/error.h"
#include "tinyamp/support/grad_mode.h"
#include "tinyamp/tensor/factories.h"

namespace tinyamp::distributed {
namespace {

void check_dtype(std::optional<DType> dtype, const char* field)
{
    TINYAMP_CHECK(!dtype || is_floating_point(*dtype), dtype, "FullyShardedDataParallel: MixedPrecision's ", field, " is ",
                  dtype_name(*dtype), "; it must be f64, f32, f16 or bf16 (bf16 or f16 to save memory and bandwidth, unset for f32)");
}

// Views of `flat`'s first elements shaped as `shapes`, one after the other.
std::vector<Tensor> unflatten(const Tensor& flat, const std::vector<Shape>& shapes)
{
    std::vector<Tensor> views;
    std::int64_t offset = 0;
    for (const Shape& shape : shapes) {
        views.push_back(flat.slice(0, offset, offset + numel(shape)).view(shape));
        offset += numel(shape);
    }
    return views;
}

const char* const kRunForwardAgain = "each forward gathers the parameters for one backward, which frees them: run the forward again "
                                     "before each backward (retain_graph through the model is not supported)";

// The identity on the model's output, whose backward first checks that the parameters its forward
// gathered are still there (PyTorch's FSDP hooks the outputs likewise, to gather before backward).
// Without it, a second backward would meet the freed parameters inside some op's backward.
struct BeforeBackward : Function<BeforeBackward> {
    static constexpr const char* name = "fsdp_before_backward";
    struct Saved {
        std::shared_ptr<const std::uint64_t> gathered_forward;  // the wrapper's: whose parameters are gathered now
        std::uint64_t forward = 0;                              // this output's forward
    };
    static Tensor forward(ContextWith<Saved>& ctx, const Tensor& output, std::shared_ptr<const std::uint64_t> gathered_forward,
                          std::uint64_t forward)
    {
        ctx.saved = {std::move(gathered_forward), forward};
        return output.detach();
    }
    static std::vector<Tensor> backward(ContextWith<Saved>& ctx, const Tensor& grad)
    {
        TINYAMP_CHECK(*ctx.saved.gathered_forward == ctx.saved.forward, state, "FullyShardedDataParallel: this backward belongs to a "
                      "forward whose gathered parameters are gone (freed by its first backward, or replaced by a later forward); ",
                      kRunForwardAgain);
        return {grad};
    }
};

}  // namespace

FullyShardedDataParallel::FullyShardedDataParallel(std::shared_ptr<nn::Module> module, MixedPrecision mixed_precision)
    : module_(std::move(module)), mixed_precision_(mixed_precision)
{
    detail::check_initialized("FullyShardedDataParallel");
    TINYAMP_CHECK(module_ != nullptr, value, "FullyShardedDataParallel: the module is null");
    check_dtype(mixed_precision_.param_dtype, "param_dtype");
    check_dtype(mixed_precision_.reduce_dtype, "reduce_dtype");
    check_dtype(mixed_precision_.buffer_dtype, "buffer_dtype");
    for (const auto& [name, p] : module_->named_parameters()) {
        bool seen = false;  // a tensor registered twice (tied weights) is flattened once
        for (const Tensor& q : parameters_) seen = seen || q.is_same(p);
        if (seen) continue;
        TINYAMP_CHECK(p.dtype() == f32, dtype, "FullyShardedDataParallel: parameter ", name, " is ", dtype_name(p.dtype()),
                      "; the master weights are f32: make the module in f32 and ask for a lower precision with MixedPrecision's param_dtype");
        TINYAMP_CHECK(p.requires_grad(), value, "FullyShardedDataParallel: parameter ", name, " does not require grad; every parameter "
                      "is trained in the one flat parameter here: leave frozen layers out of the wrapped module");
        parameters_.push_back(p);
        names_.push_back(name);
        shapes_.push_back(p.shape());
    }
    TINYAMP_CHECK(!parameters_.empty(), value, "FullyShardedDataParallel: the ", module_->type_name(),
                  " has no parameters, so there is nothing to shard; wrap a module that has some");

    std::vector<Tensor> state = parameters_;
    for (const Tensor& b : module_->buffers()) state.push_back(b);
    broadcast_parameters(state, 0);  // every rank starts from rank 0's model
    NoGradGuard no_grad;
    if (mixed_precision_.buffer_dtype)
        for (const Tensor& b : module_->buffers())
            if (is_floating_point(b.dtype())) nn::set_data(b, b.to(*mixed_precision_.buffer_dtype));

    // The flat parameter: every parameter's elements in order, zeros to a multiple of the world size.
    std::vector<Tensor> pieces;
    std::int64_t total = 0;
    for (const Tensor& p : parameters_) {
        pieces.push_back(p.reshape({-1}));
        total += p.numel();
    }
    const std::int64_t world = get_world_size();
    padded_numel_ = (total + world - 1) / world * world;
    pieces.push_back(zeros({padded_numel_ - total}));
    const std::int64_t shard_numel = padded_numel_ / world;
    shard_ = cat(pieces).slice(0, get_rank() * shard_numel, (get_rank() + 1) * shard_numel).clone().requires_grad_();
    register_parameter("flat_param", shard_);

    arrived_.assign(parameters_.size(), false);
    free_parameters();  // the module's own f32 copies go: this rank keeps its shard only
    for (std::size_t k = 0; k < parameters_.size(); ++k)
        hooks_.push_back(parameters_[k].register_post_accumulate_grad_hook([this, k](const Tensor&) { gradient_arrived(k); }));
}

FullyShardedDataParallel::~FullyShardedDataParallel()
{
    for (std::size_t k = 0; k < hooks_.size(); ++k) parameters_[k].remove_post_accumulate_grad_hook(hooks_[k]);
}

Tensor FullyShardedDataParallel::forward(const Tensor& input)
{
    check_previous_backward_finished();
    gather_parameters();
    module_->train(is_training());
    const bool cast = mixed_precision_.param_dtype && is_floating_point(input.dtype());
    const Tensor output = (*module_)(cast ? input.to(*mixed_precision_.param_dtype) : input);
    if (!output.requires_grad()) {  // no backward will come (NoGradGuard, evaluation)
        free_parameters();
        return output;
    }
    return BeforeBackward::apply(output, std::shared_ptr<const std::uint64_t>(gathered_forward_), *gathered_forward_);
}

void FullyShardedDataParallel::gather_parameters()
{
    NoGradGuard no_grad;
    trace::NestedScope inner_ops;  // the cast and the views are part of the gather's event
    const DType dtype = mixed_precision_.param_dtype.value_or(f32);
    const Tensor full = empty({padded_numel_}, dtype);
    const Tensor sent = shard_.detach().to(dtype);
    detail::all_gather_untraced(full, sent);  // its event names the parameters, not the flat vector
    const std::vector<Tensor> views = unflatten(full, shapes_);
    for (std::size_t k = 0; k < parameters_.size(); ++k) nn::set_data(parameters_[k], views[k]);
    *gathered_forward_ = ++forwards_;
    if (!trace::current()) return;
    // The event: the f32 shard in, the module's parameters out, so the graph links the gather to
    // the ops that use them.
    std::vector<trace::TensorInfo> gave;
    for (const Tensor& p : parameters_) gave.push_back(trace::describe(p, true));
    detail::record_collective("all_gather_into_tensor", detail::collective_on_this_rank("", dtype, sent.nbytes()),
                              {trace::describe(shard_, false)}, std::move(gave),
                              "FullyShardedDataParallel: this rank's f32 shard sent as " + std::string(dtype_name(dtype)) +
                                  ", every rank's gathered into the module's " + std::to_string(parameters_.size()) + " parameters");
}

void FullyShardedDataParallel::gradient_arrived(std::size_t parameter)
{
    TINYAMP_CHECK(*gathered_forward_ != 0, state, "FullyShardedDataParallel: a gradient reached ", names_[parameter],
                  " while the parameters are not gathered; ", kRunForwardAgain);
    if (arrived_[parameter]) return;
    arrived_[parameter] = true;
    if (++arrived_count_ < parameters_.size()) return;
    reduce_scatter_gradients();
    free_parameters();
}

void FullyShardedDataParallel::reduce_scatter_gradients()
{
    NoGradGuard no_grad;
    const DType dtype = mixed_precision_.reduce_dtype.value_or(mixed_precision_.param_dtype.value_or(f32));
    std::vector<Tensor> pieces;
    std::int64_t total = 0;
    for (const Tensor& p : parameters_) {
        pieces.push_back(p.grad().reshape({-1}).to(dtype));
        total += p.numel();
    }
    pieces.push_back(zeros({padded_numel_ - total}, dtype));
    // Divided first, then summed, as DDP's compression hooks do: an f16 sum stays in range.
    const Tensor flat = cat(pieces) / double(get_world_size());
    const Tensor mine = empty({shard_.numel()}, dtype);
    detail::reduce_scatter_untraced(mine, flat, ReduceOp::SUM);  // its event names the gradients, not the flat vector
    const Tensor grad = mine.to(f32);
    shard_.set_grad(shard_.grad().defined() ? add(shard_.grad(), grad) : grad);
    if (!trace::current()) return;
    std::vector<trace::TensorInfo> took;
    for (const Tensor& p : parameters_) took.push_back(detail::gradient_info(p, p.grad(), false));
    detail::record_collective("reduce_scatter_tensor", detail::collective_on_this_rank("SUM", dtype, flat.nbytes()), std::move(took),
                              {detail::gradient_info(shard_, shard_.grad(), true)},
                              "FullyShardedDataParallel: the module's gradients each divided by " + std::to_string(get_world_size()) +
                                  ", summed in " + dtype_name(dtype) + ", this rank's slice added to its f32 shard's gradient");
}

void FullyShardedDataParallel::free_parameters()
{
    const Tensor nothing = zeros({0});
    for (const Tensor& p : parameters_) {
        p.set_grad(Tensor());
        nn::set_data(p, nothing);
    }
    *gathered_forward_ = 0;
    arrived_.assign(parameters_.size(), false);
    arrived_count_ = 0;
}

// Some gradients but not all arrived after the last forward: a parameter took no part in the
// loss, and the reduce-scatter never ran. No gradient at all: that forward had no backward.
void FullyShardedDataParallel::check_previous_backward_finished()
{
    if (*gathered_forward_ == 0) return;
    std::ostringstream missing;
    for (std::size_t k = 0; k < parameters_.size(); ++k)
        if (arrived_count_ > 0 && !arrived_[k]) missing << ' ' << names_[k];
    free_parameters();
    const std::string names = missing.str();
    TINYAMP_CHECK(names.empty(), state, "FullyShardedDataParallel: in the last backward these parameters received no gradient, so the "
                  "gradients were never reduce-scattered:", names, ". Every parameter must take part in the loss; leave unused layers "
                  "out of the wrapped module");
}

nn::NamedTensors FullyShardedDataParallel::full_parameters() const
{
    NoGradGuard no_grad;
    const Tensor flat = empty({padded_numel_}, f32);
    all_gather_into_tensor(flat, shard_.detach());
    const std::vector<Tensor> views = unflatten(flat, shapes_);
    nn::NamedTensors out;
    for (std::size_t k = 0; k < parameters_.size(); ++k) out.emplace_back(names_[k], views[k].clone());
    return out;
}

}  // namespace tinyamp::distributed
