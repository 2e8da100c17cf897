// Lab 4's checks. Run them with:  build/lessons/labs -ts=lab04
#include <doctest/doctest.h>

#include "lessons/04_manual_mixed_precision/lab.h"

using namespace tinyamp;
using namespace tinyamp::lab04;

TEST_SUITE("lab04")
{
    TEST_CASE("lab 04.1: make_low_precision_copies makes bf16 leaves of their own")
    {
        const Tensor w = tensor({1.0, 0.1, 3.0}).requires_grad_();
        const std::vector<Tensor> copies = make_low_precision_copies({w}, bf16);
        REQUIRE(copies.size() == 1);
        const Tensor& c = copies[0];
        CHECK(c.dtype() == bf16);
        CHECK(c.is_leaf());
        CHECK(c.requires_grad());
        CHECK(c.at({1}) == 0.10009765625);  // 0.1 rounded to bf16's 8 significant bits
        CHECK(c.at({2}) == 3.0);
        CHECK(c.shares_storage_with(w) == false);
        // Even a copy in the master's own dtype is a copy.
        CHECK(make_low_precision_copies({w}, f32)[0].shares_storage_with(w) == false);
    }

    TEST_CASE("lab 04.2: copy_grads_to_masters moves bf16 gradients into f32 masters")
    {
        const Tensor w = tensor({1.0, 2.0}).requires_grad_();
        const Tensor c = tensor({1.0, 2.0}, bf16).requires_grad_();  // its bf16 copy (made by hand)
        sum(mul(c, c)).backward();  // grad 2c = [2, 4], in bf16
        CHECK(c.grad().dtype() == bf16);
        copy_grads_to_masters({c}, {w});
        CHECK(w.grad().dtype() == f32);
        CHECK(w.grad().to_vector() == std::vector<double>{2.0, 4.0});
        CHECK(c.grad().defined() == false);  // cleared for the next backward
        copy_grads_to_masters({c}, {w});     // no gradient on the copy now: the master keeps its own
        CHECK(w.grad().to_vector() == std::vector<double>{2.0, 4.0});
    }

    TEST_CASE("lab 04.3: master_sgd_step updates in f32 and refreshes the copy")
    {
        const Tensor w = ones({1}).requires_grad_();
        const Tensor c = ones({1}, bf16).requires_grad_();  // its bf16 copy (made by hand)
        w.set_grad(ones({1}));
        master_sgd_step({w}, {c}, 1e-4);
        CHECK(w.item() == doctest::Approx(0.9999).epsilon(1e-7));  // f32 keeps the small update
        CHECK(c.item() == 1.0);                                     // 0.9999 rounds to 1 in bf16
        for (int i = 1; i < 100; ++i) master_sgd_step({w}, {c}, 1e-4);
        CHECK(w.item() == doctest::Approx(0.99).epsilon(1e-5));
        CHECK(c.item() == 0.98828125);  // the bf16 number nearest 0.99: the copy did move
        CHECK(c.dtype() == bf16);
        CHECK(w.dtype() == f32);
    }
}
