// nn::Module and nn::Sequential: names and order of parameters and buffers (as PyTorch's, so
// state_dicts match), train/eval, to(dtype) in place, state_dict round trips and PyTorch's load
// errors (which change nothing), name checks, and PyTorch's printed form.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {

std::shared_ptr<nn::Sequential> mlp(const std::vector<std::int64_t>& sizes)
{
    auto model = std::make_shared<nn::Sequential>();
    for (std::size_t i = 0; i + 1 < sizes.size(); ++i) {
        if (i > 0) model->emplace_back<nn::ReLU>();
        model->emplace_back<nn::Linear>(sizes[i], sizes[i + 1]);
    }
    return model;
}

std::vector<std::string> names_of(const nn::NamedTensors& named)
{
    std::vector<std::string> out;
    for (const auto& entry : named) out.push_back(entry.first);
    return out;
}

// Every value of every tensor, with its dtype: equal means bit for bit equal (no NaNs here).
struct Snapshot {
    std::vector<std::string> names;
    std::vector<DType> dtypes;
    std::vector<std::vector<double>> values;
};
Snapshot snapshot(const nn::Module& m)
{
    Snapshot s;
    for (const auto& [name, t] : m.state_dict()) {
        s.names.push_back(name);
        s.dtypes.push_back(t.dtype());
        s.values.push_back(t.to_vector());
    }
    return s;
}
bool operator==(const Snapshot& a, const Snapshot& b) { return a.names == b.names && a.dtypes == b.dtypes && a.values == b.values; }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A module written the way a user writes one: its own parameter and buffer, a child, a setting.
class Block : public nn::Module {
public:
    explicit Block(std::int64_t hidden) : hidden_(hidden)
    {
        scale = register_parameter("scale", ones({hidden}));
        steps = register_buffer("steps", scalar_tensor(0, i64));
        act = register_module("act", std::make_shared<nn::ReLU>());
    }
    Tensor forward(const Tensor& x) override { return (*act)(mul(x, scale)); }
    std::string type_name() const override { return "Block"; }
    std::string extra_repr() const override { return "hidden=" + std::to_string(hidden_); }

    // Let tests try the registration checks.
    void add_parameter(const std::string& name) { register_parameter(name, zeros({1})); }
    void add_buffer(const std::string& name) { register_buffer(name, zeros({1})); }
    void add_relu(const std::string& name) { register_module(name, std::make_shared<nn::ReLU>()); }

    Tensor scale, steps;
    std::shared_ptr<nn::ReLU> act;

private:
    std::int64_t hidden_;
};

}  // namespace

TEST_CASE("nn::Sequential names parameters 0.weight, 0.bias, 2.weight, ... in order and labels the tensors")
{
    manual_seed(0);
    const auto model = mlp({4, 5, 3});
    CHECK(model->size() == 3);
    const nn::NamedTensors named = model->named_parameters();
    CHECK(names_of(named) == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"});
    for (const auto& [name, t] : named) {
        CHECK(t.name() == name);  // traces and pictures show the full path
        CHECK(t.requires_grad());
        CHECK(t.is_leaf());
        CHECK(t.dtype() == f32);
    }
    // parameters() are the same tensors, in the same order, and the layers' public members.
    const std::vector<Tensor> params = model->parameters();
    REQUIRE(params.size() == 4);
    for (std::size_t i = 0; i < params.size(); ++i) CHECK(params[i].is_same(named[i].second));
    const auto first = std::dynamic_pointer_cast<nn::Linear>((*model)[0]);
    REQUIRE(first != nullptr);
    CHECK(first->weight.is_same(params[0]));
    CHECK(first->bias.is_same(params[1]));
    CHECK((*model)[-1].get() == (*model)[2].get());
    CHECK(error_message([&] { (*model)[3]; }, ErrorKind::index).find("out of range") != std::string::npos);
    // Nesting adds another prefix.
    auto outer = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{std::make_shared<nn::ReLU>(), model});
    CHECK(names_of(outer->named_parameters()) == std::vector<std::string>{"1.0.weight", "1.0.bias", "1.2.weight", "1.2.bias"});
    CHECK(first->weight.name() == "1.0.weight");
}

TEST_CASE("nn::Module counts parameters: a 64-256-256-10 MLP has 85002")
{
    const auto model = mlp({64, 256, 256, 10});
    CHECK(model->parameters().size() == 6);
    CHECK(model->num_parameters() == 85002);  // 64*256+256 + 256*256+256 + 256*10+10
    CHECK(nn::Linear(3, 2, false).num_parameters() == 6);
}

TEST_CASE("nn::Module buffers are saved in state_dict but are not parameters")
{
    auto model = std::make_shared<nn::Sequential>();
    model->emplace_back<nn::Linear>(3, 4);
    model->emplace_back<nn::BatchNorm1d>(4);
    model->emplace_back<Block>(4);
    CHECK(names_of(model->named_buffers()) ==
          std::vector<std::string>{"1.running_mean", "1.running_var", "1.num_batches_tracked", "2.steps"});
    CHECK(names_of(model->named_parameters()) == std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "2.scale"});
    // A module's own parameters, then its own buffers, then its children's: as PyTorch.
    CHECK(names_of(model->state_dict()) == std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                                                                    "1.running_var", "1.num_batches_tracked", "2.scale", "2.steps"});
    CHECK(model->buffers().size() == 4);
    for (const Tensor& b : model->buffers()) CHECK_FALSE(b.requires_grad());
    CHECK(model->buffers()[0].name() == "1.running_mean");
}

TEST_CASE("nn::Module train and eval reach every child")
{
    auto inner = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{std::make_shared<nn::Dropout>(0.5)});
    auto model = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{std::make_shared<nn::Linear>(2, 2), inner});
    CHECK(model->is_training());
    CHECK(&model->eval() == model.get());
    CHECK_FALSE(model->is_training());
    CHECK_FALSE((*model)[0]->is_training());
    CHECK_FALSE((*inner)[0]->is_training());
    model->train();
    CHECK((*inner)[0]->is_training());
    model->train(false);
    CHECK_FALSE((*inner)[0]->is_training());
}

TEST_CASE("nn::Module to(dtype) converts in place: same tensors for an optimizer made before, grads converted, i64 buffers kept")
{
    manual_seed(1);
    auto model = mlp({3, 4, 2});
    model->emplace_back<nn::BatchNorm1d>(2);
    optim::SGD opt(model->parameters(), {.lr = 0.1});
    const Tensor x = randn({5, 3});
    sum((*model)(x)).backward();
    const std::vector<Tensor> before = model->parameters();
    const std::vector<double> w0 = before[0].to_vector();

    for (DType d : {f64, bf16, f16, f32}) {
        INFO(dtype_name(d));
        model->to(d);
        const std::vector<Tensor> params = model->parameters();
        REQUIRE(params.size() == before.size());
        for (std::size_t i = 0; i < params.size(); ++i) {
            CHECK(params[i].is_same(before[i]));
            CHECK(opt.param_groups()[0].params[i].is_same(params[i]));
            CHECK(params[i].dtype() == d);
            CHECK(params[i].requires_grad());
            REQUIRE(params[i].grad().defined());
            CHECK(params[i].grad().dtype() == d);
        }
        const auto bn = std::dynamic_pointer_cast<nn::BatchNorm1d>((*model)[3]);
        CHECK(bn->running_mean.dtype() == d);
        CHECK(bn->num_batches_tracked.dtype() == i64);
        CHECK(bn->num_batches_tracked.item() == 1);
        CHECK(model->parameters()[0].name() == "0.weight");
    }
    // f32 -> f64 -> bf16 -> f16 -> f32 is not lossless, but the values stayed close to where they were.
    const std::vector<double> w1 = before[0].to_vector();
    for (std::size_t i = 0; i < w0.size(); ++i) CHECK(std::abs(w1[i] - w0[i]) <= 1e-2 * std::abs(w0[i]) + 1e-6);
    CHECK(error_message([&] { model->to(i64); }, ErrorKind::dtype).find("floating point") != std::string::npos);
}

TEST_CASE("nn::Module zero_grad drops every gradient")
{
    auto model = mlp({3, 2});
    sum((*model)(ones({1, 3}))).backward();
    CHECK(model->parameters()[0].grad().defined());
    model->zero_grad();
    for (const Tensor& p : model->parameters()) CHECK_FALSE(p.grad().defined());
}

TEST_CASE("nn::Module state_dict and load_state_dict round trip between two models")
{
    manual_seed(2);
    auto a = mlp({4, 3, 2});
    a->emplace_back<nn::BatchNorm1d>(2);
    manual_seed(3);
    auto b = mlp({4, 3, 2});
    b->emplace_back<nn::BatchNorm1d>(2);
    (*a)(randn({6, 4}));  // one training step moves a's running stats and its batch count
    CHECK_FALSE(snapshot(*a) == snapshot(*b));

    const std::vector<Tensor> b_tensors = b->parameters();
    b->load_state_dict(a->state_dict());
    CHECK(snapshot(*a) == snapshot(*b));
    // Loaded by value, into b's own tensors.
    for (std::size_t i = 0; i < b_tensors.size(); ++i) {
        CHECK(b->parameters()[i].is_same(b_tensors[i]));
        CHECK_FALSE(b->parameters()[i].shares_storage_with(a->parameters()[i]));
    }
    const Tensor x = randn({5, 4});
    a->eval();
    b->eval();
    CHECK((*a)(x).to_vector() == (*b)(x).to_vector());

    // A checkpoint in another dtype is converted to the model's.
    auto c = mlp({4, 3, 2});
    c->emplace_back<nn::BatchNorm1d>(2);
    c->to(f64);
    c->load_state_dict(a->state_dict());
    CHECK(c->parameters()[0].dtype() == f64);
    CHECK(c->parameters()[0].to_vector() == a->parameters()[0].to_vector());  // f32 -> f64 is exact
}

TEST_CASE("nn::Module load_state_dict refuses missing, unexpected and mis-sized keys with PyTorch's messages and changes nothing")
{
    manual_seed(4);
    auto model = mlp({4, 5, 3});
    const Snapshot before = snapshot(*model);
    manual_seed(5);
    const auto source = mlp({4, 5, 3});

    SUBCASE("missing")
    {
        nn::NamedTensors state = source->state_dict();
        state.pop_back();
        const std::string msg = error_message([&] { model->load_state_dict(state); }, ErrorKind::value);
        CHECK(contains(msg, "Error(s) in loading state_dict for Sequential:"));
        CHECK(contains(msg, "Missing key(s) in state_dict: \"2.bias\""));
        CHECK_FALSE(contains(msg, "Unexpected"));
    }
    SUBCASE("unexpected")
    {
        nn::NamedTensors state = source->state_dict();
        state.emplace_back("3.weight", zeros({2}));
        const std::string msg = error_message([&] { model->load_state_dict(state); }, ErrorKind::value);
        CHECK(contains(msg, "Unexpected key(s) in state_dict: \"3.weight\""));
        CHECK_FALSE(contains(msg, "Missing"));
    }
    SUBCASE("size mismatch")
    {
        const auto other = mlp({4, 3, 3});  // first layer 4 -> 3 where the model has 4 -> 5
        const std::string msg = error_message([&] { model->load_state_dict(other->state_dict()); }, ErrorKind::value);
        CHECK(contains(msg, "size mismatch for 0.weight: copying a param with shape [3, 4] from checkpoint, the shape in current model is [5, 4]."));
        CHECK(contains(msg, "size mismatch for 0.bias"));
        CHECK(contains(msg, "size mismatch for 2.weight"));
        // Even with strict=false: a shape cannot be loaded.
        CHECK(contains(error_message([&] { model->load_state_dict(other->state_dict(), false); }, ErrorKind::value), "size mismatch"));
    }
    SUBCASE("all three, in PyTorch's order")
    {
        nn::NamedTensors state = source->state_dict();
        state[0].second = zeros({3, 4});
        state.pop_back();
        state.emplace_back("extra", zeros({1}));
        const std::string msg = error_message([&] { model->load_state_dict(state); }, ErrorKind::value);
        const auto missing = msg.find("Missing"), unexpected = msg.find("Unexpected"), size = msg.find("size mismatch");
        REQUIRE(missing != std::string::npos);
        REQUIRE(unexpected != std::string::npos);
        REQUIRE(size != std::string::npos);
        CHECK(missing < unexpected);
        CHECK(unexpected < size);
    }
    CHECK(snapshot(*model) == before);
}

TEST_CASE("nn::Module load_state_dict with strict false loads what matches and skips the rest")
{
    manual_seed(6);
    auto model = mlp({4, 5, 3});
    manual_seed(7);
    const auto source = mlp({4, 5, 3});
    nn::NamedTensors state = source->state_dict();
    const Tensor kept_bias = model->state_dict().back().second;
    const std::vector<double> bias_before = kept_bias.to_vector();
    state.pop_back();                                // 2.bias missing
    state.emplace_back("head.weight", zeros({1}));   // unexpected
    model->load_state_dict(state, false);
    CHECK(model->parameters()[0].to_vector() == source->parameters()[0].to_vector());
    CHECK(model->parameters()[2].to_vector() == source->parameters()[2].to_vector());
    CHECK(kept_bias.to_vector() == bias_before);
}

TEST_CASE("nn::Module refuses duplicate, empty and dotted names")
{
    Block block(3);
    CHECK(contains(error_message([&] { block.add_parameter("scale"); }, ErrorKind::value), "already has a member named 'scale'"));
    CHECK(contains(error_message([&] { block.add_buffer("act"); }, ErrorKind::value), "already has a member named 'act'"));
    CHECK(contains(error_message([&] { block.add_relu("steps"); }, ErrorKind::value), "already has a member named 'steps'"));
    CHECK(contains(error_message([&] { block.add_parameter("a.b"); }, ErrorKind::value), "'a.b' is not allowed"));
    CHECK(contains(error_message([&] { block.add_relu(""); }, ErrorKind::value), "is not allowed"));
    // Nothing was added by the refused calls.
    CHECK(names_of(block.state_dict()) == std::vector<std::string>{"scale", "steps"});
    block.add_parameter("extra");
    CHECK(names_of(block.named_parameters()) == std::vector<std::string>{"scale", "extra"});
}

TEST_CASE("nn::Module to_string prints PyTorch's repr")
{
    manual_seed(8);
    auto model = std::make_shared<nn::Sequential>();
    model->emplace_back<nn::Linear>(4, 3);
    model->emplace_back<nn::ReLU>();
    CHECK(model->to_string() == "Sequential(\n  (0): Linear(in_features=4, out_features=3, bias=True)\n  (1): ReLU()\n)");

    auto outer = std::make_shared<nn::Sequential>();
    outer->push_back(model);
    outer->emplace_back<nn::Dropout>(0.1);
    outer->emplace_back<nn::Linear>(3, 2, false);
    CHECK(outer->to_string() ==
          "Sequential(\n"
          "  (0): Sequential(\n"
          "    (0): Linear(in_features=4, out_features=3, bias=True)\n"
          "    (1): ReLU()\n"
          "  )\n"
          "  (1): Dropout(p=0.1, inplace=False)\n"
          "  (2): Linear(in_features=3, out_features=2, bias=False)\n"
          ")");
    CHECK(nn::Sequential().to_string() == "Sequential()");
    // Settings and children together: the settings get a line of their own, as in PyTorch.
    CHECK(Block(4).to_string() == "Block(\n  hidden=4\n  (act): ReLU()\n)");

    CHECK(nn::Conv2d(1, 8, 3, 1, 1).to_string() == "Conv2d(1, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))");
    CHECK(nn::Conv2d(8, 16, {3, 2}, 2, 0, false).to_string() == "Conv2d(8, 16, kernel_size=(3, 2), stride=(2, 2), bias=False)");
    CHECK(nn::BatchNorm2d(16).to_string() == "BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)");
    CHECK(nn::BatchNorm1d(3, 1e-4, 1.0, false, false).to_string() ==
          "BatchNorm1d(3, eps=0.0001, momentum=1.0, affine=False, track_running_stats=False)");
    CHECK(nn::LayerNorm(4).to_string() == "LayerNorm((4,), eps=1e-05, elementwise_affine=True)");
    CHECK(nn::LayerNorm({3, 4}, 1e-6, false).to_string() == "LayerNorm((3, 4), eps=1e-06, elementwise_affine=False)");
    CHECK(nn::Dropout().to_string() == "Dropout(p=0.5, inplace=False)");
    CHECK(nn::Dropout(1).to_string() == "Dropout(p=1.0, inplace=False)");
    CHECK(nn::Dropout(0.125).to_string() == "Dropout(p=0.125, inplace=False)");
    CHECK(nn::Flatten().to_string() == "Flatten(start_dim=1, end_dim=-1)");
    CHECK(nn::GELU().to_string() == "GELU(approximate='none')");
    CHECK(nn::CrossEntropyLoss().to_string() == "CrossEntropyLoss()");
    CHECK(nn::BCEWithLogitsLoss(Reduction::sum, ones({2})).to_string() == "BCEWithLogitsLoss()");
}

TEST_CASE("nn::Module single-input forward of a loss module is an error")
{
    nn::CrossEntropyLoss loss;
    const Tensor x = zeros({2, 3});
    CHECK(contains(error_message([&] { loss(x); }, ErrorKind::state), "CrossEntropyLoss does not take a single input"));
    CHECK(contains(error_message([&] { loss.forward(x); }, ErrorKind::state), "does not take a single input"));
    std::shared_ptr<nn::Module> as_module = std::make_shared<nn::MSELoss>();
    CHECK(contains(error_message([&] { (*as_module)(x); }, ErrorKind::state), "MSELoss does not take a single input"));
    // Inside a Sequential it fails the same way, at its turn.
    nn::Sequential seq(std::vector<std::shared_ptr<nn::Module>>{std::make_shared<nn::ReLU>(), std::make_shared<nn::NLLLoss>()});
    CHECK(contains(error_message([&] { seq(x); }, ErrorKind::state), "NLLLoss does not take a single input"));
}
