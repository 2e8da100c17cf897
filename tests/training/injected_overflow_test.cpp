// Fault injection into training: inf and NaN put into the gradients (or the inputs) at random
// steps of real training runs, for every optimizer and many seeds. The properties GradScaler must
// keep, whatever the optimizer:
// - a step is skipped exactly when a gradient it sees is inf or NaN;
// - a skipped step changes no parameter and no optimizer state (moments, momentum, step counts);
// - the scale backs off after a skipped step and the growth tracker restarts;
// - in f32, skipping is the same as never having seen that batch: the run with faults ends bit
//   for bit where a run without a scaler ends when it leaves out those batches (scaling by a power
//   of two and back is exact, so nothing else may differ).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

namespace {

constexpr int kSeeds = 12;
constexpr int kSteps = 24;

struct OptimizerCase {
    const char* name;
    std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)> make;
};

std::vector<OptimizerCase> optimizer_cases()
{
    return {
        {"SGD", [](std::vector<Tensor> p) { return std::make_unique<optim::SGD>(std::move(p), optim::SGDOptions{.lr = 0.1}); }},
        {"SGD momentum, dampening",
         [](std::vector<Tensor> p) {
             return std::make_unique<optim::SGD>(std::move(p), optim::SGDOptions{.lr = 0.05, .momentum = 0.9, .dampening = 0.25});
         }},
        {"SGD nesterov, weight decay",
         [](std::vector<Tensor> p) {
             return std::make_unique<optim::SGD>(std::move(p),
                                                 optim::SGDOptions{.lr = 0.05, .momentum = 0.8, .weight_decay = 1e-3, .nesterov = true});
         }},
        {"Adam", [](std::vector<Tensor> p) { return std::make_unique<optim::Adam>(std::move(p), optim::AdamOptions{.lr = 1e-2}); }},
        {"Adam, L2 weight decay",
         [](std::vector<Tensor> p) {
             return std::make_unique<optim::Adam>(std::move(p), optim::AdamOptions{.lr = 1e-2, .weight_decay = 1e-2});
         }},
        {"AdamW", [](std::vector<Tensor> p) { return std::make_unique<optim::AdamW>(std::move(p), optim::AdamWOptions{.lr = 1e-2}); }},
    };
}

// The bytes of a tensor's elements: equal bytes, equal tensor (NaN included).
std::string bytes_of(const Tensor& t)
{
    const Tensor c = t.contiguous();
    return {static_cast<const char*>(c.data_ptr()), std::size_t(c.nbytes())};
}

// Everything a step may change: each parameter, and every tensor and option of the optimizer.
std::vector<std::string> snapshot(const nn::Module& model, const optim::Optimizer& optimizer)
{
    std::vector<std::string> out;
    for (const Tensor& p : model.parameters()) out.push_back(bytes_of(p));
    const optim::OptimizerStateDict state = optimizer.state_dict();
    for (const auto& [index, entries] : state.state)
        for (const auto& [name, t] : entries) out.push_back(std::to_string(index) + name + bytes_of(t));
    for (const optim::ParamGroupState& group : state.param_groups)
        for (const auto& [key, value] : group.options) out.push_back(key + std::to_string(value));
    return out;
}

bool any_grad_non_finite(const nn::Module& model)
{
    for (const Tensor& p : model.parameters())
        if (p.grad().defined())
            for (double g : p.grad().to_vector())
                if (!std::isfinite(g)) return true;
    return false;
}

std::shared_ptr<nn::Sequential> make_model(std::uint64_t seed)
{
    manual_seed(seed);
    auto model = std::make_shared<nn::Sequential>();
    model->emplace_back<nn::Linear>(6, 8);
    model->emplace_back<nn::ReLU>();
    model->emplace_back<nn::Linear>(8, 3);
    return model;
}

// The batches of a run: the same for every run of one seed.
struct Batches {
    std::vector<Tensor> x, y;
    explicit Batches(std::uint64_t seed)
    {
        Generator gen(seed * 7919 + 1);
        for (int i = 0; i < kSteps; ++i) {
            x.push_back(randn({5, 6}, f32, gen));
            y.push_back(tensor({double(gen.next_u64() % 3), double(gen.next_u64() % 3), double(gen.next_u64() % 3),
                                double(gen.next_u64() % 3), double(gen.next_u64() % 3)},
                               {5}, i64));
        }
    }
};

// Where and how a step's fault strikes: none, or a value put into one gradient element or into
// one input element (the second makes the forward pass itself produce inf/NaN).
struct Fault {
    enum Where { none, gradient, input } where = none;
    double value = 0;
    std::size_t param = 0;
    std::int64_t element = 0;
};

std::vector<Fault> random_faults(std::uint64_t seed, const nn::Module& model)
{
    Generator gen(seed * 104729 + 3);
    const std::vector<Tensor> params = model.parameters();
    const double values[] = {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN()};
    std::vector<Fault> faults(kSteps);
    for (Fault& f : faults) {
        const double u = gen.uniform();
        if (u < 0.7) continue;  // about 30% of the steps
        f.where = u < 0.9 ? Fault::gradient : Fault::input;
        f.value = values[gen.next_u64() % 3];
        f.param = std::size_t(gen.next_u64() % params.size());
        f.element = std::int64_t(gen.next_u64() % std::uint64_t(params[f.param].numel()));
    }
    return faults;
}

// Sets element `flat` (row-major) of t to value.
void set_flat(const Tensor& t, std::int64_t flat, double value)
{
    std::vector<std::int64_t> index(std::size_t(t.dim()));
    for (std::int64_t d = t.dim(); d-- > 0;) {
        index[std::size_t(d)] = flat % t.size(d);
        flat /= t.size(d);
    }
    t.set(index, value);
}

// Step i's forward and scaled backward, with the step's fault put into the input or a gradient.
void scaled_backward(nn::Sequential& model, optim::Optimizer& optimizer, amp::GradScaler& scaler, const Batches& batches, int i,
                     const Fault& fault)
{
    Tensor x = batches.x[std::size_t(i)].clone();
    if (fault.where == Fault::input) set_flat(x, fault.element % x.numel(), fault.value);
    optimizer.zero_grad();
    scaler.scale(cross_entropy(model(x), batches.y[std::size_t(i)])).backward();
    if (fault.where == Fault::gradient) set_flat(model.parameters()[fault.param].grad(), fault.element, fault.value);
}

}  // namespace

TEST_CASE("inf/NaN injected at random steps: skipped exactly then, and a skipped step changes no parameter and no optimizer state")
{
    int skipped_total = 0, stepped_total = 0;
    for (const OptimizerCase& c : optimizer_cases())
        for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
            CAPTURE(c.name);
            CAPTURE(seed);
            auto model = make_model(seed);
            auto optimizer = c.make(model->parameters());
            amp::GradScaler scaler("cpu", {.init_scale = 1024.0, .growth_interval = 3});
            const Batches batches(seed);
            const std::vector<Fault> faults = random_faults(seed, *model);
            for (int i = 0; i < kSteps; ++i) {
                CAPTURE(i);
                const Fault& fault = faults[std::size_t(i)];
                scaled_backward(*model, *optimizer, scaler, batches, i, fault);

                const bool non_finite = any_grad_non_finite(*model);
                CHECK(non_finite == (fault.where != Fault::none));
                const std::vector<std::string> before = snapshot(*model, *optimizer);
                const double scale_before = scaler.get_scale();
                const bool stepped = scaler.step(*optimizer);
                scaler.update();

                CHECK(stepped == !non_finite);
                if (stepped) {
                    ++stepped_total;
                    CHECK(snapshot(*model, *optimizer) != before);
                } else {
                    ++skipped_total;
                    CHECK(snapshot(*model, *optimizer) == before);
                    CHECK(scaler.get_scale() == scale_before * 0.5);
                    CHECK(scaler.get_growth_tracker() == 0);
                }
                CHECK(scaler.history().back().skipped == !stepped);
            }
        }
    // The random plans did inject faults, and left clean steps too.
    CHECK(skipped_total > 100);
    CHECK(stepped_total > 3 * skipped_total / 2);
}

TEST_CASE("in f32, a run with skipped steps ends bit for bit where a run without a scaler ends that leaves out those batches")
{
    for (const OptimizerCase& c : optimizer_cases())
        for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
            CAPTURE(c.name);
            CAPTURE(seed);
            const Batches batches(seed);
            auto scaled_model = make_model(seed);
            const std::vector<Fault> faults = random_faults(seed, *scaled_model);
            auto scaled_optimizer = c.make(scaled_model->parameters());
            amp::GradScaler scaler("cpu", {.init_scale = 1024.0, .growth_interval = 3});
            auto plain_model = make_model(seed);
            auto plain_optimizer = c.make(plain_model->parameters());

            for (int i = 0; i < kSteps; ++i) {
                const Fault& fault = faults[std::size_t(i)];
                scaled_backward(*scaled_model, *scaled_optimizer, scaler, batches, i, fault);
                scaler.step(*scaled_optimizer);
                scaler.update();

                if (fault.where != Fault::none) continue;  // the plain run never sees this batch
                plain_optimizer->zero_grad();
                cross_entropy((*plain_model)(batches.x[std::size_t(i)]), batches.y[std::size_t(i)]).backward();
                plain_optimizer->step();
            }
            CHECK(snapshot(*scaled_model, *scaled_optimizer) == snapshot(*plain_model, *plain_optimizer));
        }
}

TEST_CASE("f16 autocast with a scale too large: the overflows come from the backward pass itself, and skipped steps change nothing")
{
    // No injected value here: a 2^24 start overflows f16 gradients until the scale has backed off,
    // and growth every 2 clean steps pushes it back into overflow now and then.
    int skipped = 0;
    for (const OptimizerCase& c : optimizer_cases()) {
        CAPTURE(c.name);
        auto model = make_model(5);
        auto optimizer = c.make(model->parameters());
        amp::GradScaler scaler("cpu", {.init_scale = 16777216.0, .growth_interval = 2});
        const Batches batches(5);
        for (int i = 0; i < kSteps; ++i) {
            CAPTURE(i);
            optimizer->zero_grad();
            Tensor loss;
            {
                amp::autocast region("cpu", {.dtype = f16});
                loss = cross_entropy((*model)(batches.x[std::size_t(i)] * 1000.0), batches.y[std::size_t(i)]);
            }
            scaler.scale(loss).backward();
            const bool non_finite = any_grad_non_finite(*model);
            const std::vector<std::string> before = snapshot(*model, *optimizer);
            const bool stepped = scaler.step(*optimizer);
            scaler.update();
            CHECK(stepped == !non_finite);
            if (!stepped) {
                ++skipped;
                CHECK(snapshot(*model, *optimizer) == before);
            }
        }
    }
    CHECK(skipped >= 6);  // at least one natural overflow per optimizer
}
