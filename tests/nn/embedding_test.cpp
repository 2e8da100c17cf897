// nn::Embedding: the forward is the op embedding with the layer's weight; PyTorch's N(0, 1) init
// (reproducible under manual_seed); its parameter, repr and gradient; autocast leaves it alone.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

TEST_CASE("nn::Embedding is embedding(input, weight): indices [B, T] to [B, T, dim]")
{
    manual_seed(0);
    nn::Embedding wte(65, 8);
    CHECK(wte.num_embeddings == 65);
    CHECK(wte.embedding_dim == 8);
    CHECK(wte.weight.shape() == Shape{65, 8});
    const Tensor tokens = tensor({0, 64, 3, 3, 17, 1}, {2, 3}, i64);
    const Tensor x = wte(tokens);
    CHECK(x.shape() == Shape{2, 3, 8});
    CHECK(x.dtype() == f32);
    CHECK(x.to_vector() == embedding(tokens, wte.weight).to_vector());
    CHECK(wte.named_parameters().size() == 1);
    CHECK(wte.named_parameters()[0].first == "weight");
    CHECK(wte.to_string() == "Embedding(65, 8)");
    CHECK(error_message([&] { wte(tensor({65}, i64)); }, ErrorKind::index).find("index 65") != std::string::npos);
    CHECK(error_message([] { nn::Embedding(0, 8); }, ErrorKind::value).find("must be positive") != std::string::npos);
}

TEST_CASE("nn::Embedding init is N(0, 1), as PyTorch, and reproducible under manual_seed")
{
    manual_seed(1);
    nn::Embedding a(100, 50);
    const std::vector<double> w = a.weight.to_vector();
    double mean = 0, square = 0;
    for (double v : w) {
        mean += v;
        square += v * v;
    }
    mean /= double(w.size());
    const double sd = std::sqrt(square / double(w.size()) - mean * mean);
    // 5000 draws: the mean is within 4 standard errors (4/sqrt(5000) = 0.057) of 0, the sd near 1.
    CHECK(std::abs(mean) < 4 / std::sqrt(double(w.size())));
    CHECK(std::abs(sd - 1) < 0.05);
    manual_seed(1);
    nn::Embedding b(100, 50);
    CHECK(b.weight.to_vector() == w);
}

TEST_CASE("nn::Embedding: the weight gets a dense gradient, under autocast the rows stay f32 (embedding is in no list)")
{
    manual_seed(2);
    auto wte = std::make_shared<nn::Embedding>(5, 3);
    const Tensor tokens = tensor({4, 0, 4}, i64);
    Tensor x;
    {
        amp::autocast region("cpu");
        x = (*wte)(tokens);
    }
    CHECK(x.dtype() == f32);
    sum(x).backward();
    CHECK(wte->weight.grad().dtype() == f32);
    CHECK(wte->weight.grad().to_vector() == std::vector<double>{1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2});
}
