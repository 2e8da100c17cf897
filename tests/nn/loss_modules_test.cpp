// The loss modules: each equals its functional op (value and gradient) for every reduction and
// setting; BCEWithLogitsLoss keeps pos_weight as a buffer, so it is in the state_dict.
#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

namespace {

bool same_values(const Tensor& a, const Tensor& b)
{
    return a.dtype() == b.dtype() && a.shape() == b.shape() && a.to_vector() == b.to_vector();
}

using LossFn = std::function<Tensor(const Tensor&, const Tensor&)>;

// module(input, target) and op(input, target): the same value, and the same gradient for input.
// (A module is taken by reference, temporaries too: modules cannot be copied.)
template <class LossModule>
void check_same(LossModule&& module, const LossFn& op, const Tensor& input, const Tensor& target)
{
    const Tensor a = input.clone().requires_grad_(), b = input.clone().requires_grad_();
    const Tensor by_module = module(a, target), by_op = op(b, target);
    CHECK(same_values(by_module, by_op));
    Generator gen(99);
    const Tensor direction = randn(by_op.shape(), by_op.dtype(), gen);  // also right for reduction none
    sum(mul(by_module, direction)).backward();
    sum(mul(by_op, direction)).backward();
    CHECK(same_values(a.grad(), b.grad()));
}

const std::vector<Reduction> kReductions = {Reduction::none, Reduction::mean, Reduction::sum};

}  // namespace

TEST_CASE("nn::CrossEntropyLoss equals cross_entropy for each reduction and ignore_index")
{
    Generator gen(1);
    const Tensor logits = randn({4, 3}, f32, gen);
    const Tensor labels = tensor({0, 2, 1, 2}, {4}, i64);
    for (Reduction r : kReductions) {
        INFO(reduction_name(r));
        nn::CrossEntropyLoss loss(r);
        CHECK(loss.reduction == r);
        CHECK(loss.ignore_index == -100);
        check_same(loss, [r](const Tensor& x, const Tensor& t) { return cross_entropy(x, t, r); }, logits, labels);
        nn::CrossEntropyLoss ignoring(r, 2);
        check_same(ignoring, [r](const Tensor& x, const Tensor& t) { return cross_entropy(x, t, r, 2); }, logits, labels);
    }
    // The setting matters: ignoring class 2 leaves two of four samples.
    CHECK_FALSE(same_values(nn::CrossEntropyLoss()(logits, labels), nn::CrossEntropyLoss(Reduction::mean, 2)(logits, labels)));
    CHECK(nn::CrossEntropyLoss(Reduction::none)(logits, labels).shape() == Shape{4});
    CHECK(nn::CrossEntropyLoss()(logits, labels).shape() == Shape{});
}

TEST_CASE("nn::NLLLoss equals nll_loss for each reduction and ignore_index")
{
    Generator gen(2);
    const Tensor log_probs = log_softmax(randn({5, 4}, f32, gen), -1);
    const Tensor labels = tensor({3, 0, 1, 1, 2}, {5}, i64);
    for (Reduction r : kReductions) {
        INFO(reduction_name(r));
        check_same(nn::NLLLoss(r), [r](const Tensor& x, const Tensor& t) { return nll_loss(x, t, r); }, log_probs, labels);
        check_same(nn::NLLLoss(r, 1), [r](const Tensor& x, const Tensor& t) { return nll_loss(x, t, r, 1); }, log_probs, labels);
    }
}

TEST_CASE("nn::MSELoss and nn::BCELoss equal their ops for each reduction")
{
    Generator gen(3);
    const Tensor x = randn({3, 4}, f32, gen), y = randn({3, 4}, f32, gen);
    const Tensor probs = add(mul(rand({6}, f32, gen), 0.9), 0.05), targets = rand({6}, f32, gen);
    for (Reduction r : kReductions) {
        INFO(reduction_name(r));
        check_same(nn::MSELoss(r), [r](const Tensor& a, const Tensor& b) { return mse_loss(a, b, r); }, x, y);
        check_same(nn::BCELoss(r), [r](const Tensor& a, const Tensor& b) { return binary_cross_entropy(a, b, r); }, probs, targets);
    }
    CHECK(nn::MSELoss().reduction == Reduction::mean);
}

TEST_CASE("nn::BCEWithLogitsLoss equals its op, with and without pos_weight")
{
    Generator gen(4);
    const Tensor logits = randn({5, 3}, f32, gen), targets = rand({5, 3}, f32, gen);
    const Tensor pos_weight = tensor({1.0, 2.0, 0.5});
    for (Reduction r : kReductions) {
        INFO(reduction_name(r));
        check_same(nn::BCEWithLogitsLoss(r),
                   [r](const Tensor& a, const Tensor& b) { return binary_cross_entropy_with_logits(a, b, r); }, logits, targets);
        check_same(nn::BCEWithLogitsLoss(r, pos_weight),
                   [&, r](const Tensor& a, const Tensor& b) { return binary_cross_entropy_with_logits(a, b, r, pos_weight); }, logits,
                   targets);
    }
    CHECK_FALSE(same_values(nn::BCEWithLogitsLoss()(logits, targets), nn::BCEWithLogitsLoss(Reduction::mean, pos_weight)(logits, targets)));
}

TEST_CASE("nn::BCEWithLogitsLoss keeps pos_weight as a buffer: in state_dict, converted by to, not a parameter")
{
    const Tensor pos_weight = tensor({1.0, 3.0});
    nn::BCEWithLogitsLoss loss(Reduction::mean, pos_weight);
    CHECK(loss.pos_weight.is_same(pos_weight));
    REQUIRE(loss.state_dict().size() == 1);
    CHECK(loss.state_dict()[0].first == "pos_weight");
    CHECK(loss.named_buffers()[0].first == "pos_weight");
    CHECK(loss.parameters().empty());
    CHECK_FALSE(pos_weight.requires_grad());
    loss.to(f64);
    CHECK(pos_weight.dtype() == f64);

    // Inside a model it is saved under the child's name, and loads from a checkpoint.
    auto model = std::make_shared<nn::Sequential>();
    model->emplace_back<nn::BCEWithLogitsLoss>(Reduction::mean, tensor({1.0, 1.0}));
    CHECK(model->state_dict()[0].first == "0.pos_weight");
    model->load_state_dict({{"0.pos_weight", tensor({2.0, 5.0})}});
    CHECK(model->state_dict()[0].second.to_vector() == std::vector<double>{2.0, 5.0});

    nn::BCEWithLogitsLoss plain;
    CHECK(plain.state_dict().empty());
    CHECK_FALSE(plain.pos_weight.defined());
}

TEST_CASE("nn::Loss modules print PyTorch's names")
{
    CHECK(nn::CrossEntropyLoss().to_string() == "CrossEntropyLoss()");
    CHECK(nn::NLLLoss().to_string() == "NLLLoss()");
    CHECK(nn::MSELoss().to_string() == "MSELoss()");
    CHECK(nn::BCELoss().to_string() == "BCELoss()");
    CHECK(nn::BCEWithLogitsLoss().to_string() == "BCEWithLogitsLoss()");
}
