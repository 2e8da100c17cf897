// Lab 04's checks. Run them with:  scripts/lab check 04
#include <string>
#include <vector>

#include "lessons/04_manual_mixed_precision/lab.h"
#include "lessons/support/lab_checks.h"

using namespace tinyamp;
using namespace tinyamp::lab04;

TEST_SUITE("lab04")
{
    TEST_CASE("lab 04.1: make_low_precision_copies makes bf16 leaves of their own")
    {
        const Tensor w = tensor({1.0, 0.1, 3.0}).requires_grad_();
        const std::vector<Tensor> copies = make_low_precision_copies({w}, bf16);
        LAB_REQUIRE("one copy per master", copies.size() == 1);
        const Tensor& c = copies[0];
        CAPTURE(c);
        LAB_CHECK("the copy is in the dtype asked for",
                  c.dtype() == bf16);
        const std::string copy_grad_fn = c.grad_fn() ? c.grad_fn()->name() : "none";
        CAPTURE(copy_grad_fn);
        LAB_CHECK("the copy is a leaf, not a result computed from the master: its grad_fn is none "
                  "(mistake: converting the master without detach())",
                  c.is_leaf());
        LAB_CHECK("the copy requires grad, so backward gives it a .grad",
                  c.requires_grad());
        LAB_CHECK("0.1 rounded to bf16's 8 significant bits is 0.10009765625",
                  c.at({1}) == 0.10009765625);
        LAB_CHECK("3 is a bf16 number: it is stored exactly",
                  c.at({2}) == 3.0);
        LAB_CHECK("the bf16 copy has storage of its own",
                  c.shares_storage_with(w) == false);
        LAB_CHECK("even a copy in the master's own dtype has storage of its own: to(f32) of an f32 tensor is that "
                  "tensor (mistake: skipping clone() when the dtype already matches)",
                  make_low_precision_copies({w}, f32)[0].shares_storage_with(w) == false);
    }

    TEST_CASE("lab 04.2: copy_grads_to_masters moves bf16 gradients into f32 masters")
    {
        const Tensor w = tensor({1.0, 2.0}).requires_grad_();
        const Tensor c = tensor({1.0, 2.0}, bf16).requires_grad_();  // its bf16 copy (made by hand)
        sum(mul(c, c)).backward();                                     // grad 2c = [2, 4], in bf16
        REQUIRE(c.grad().dtype() == bf16);
        copy_grads_to_masters({c}, {w});
        LAB_CHECK("the master's .grad is f32, like the master: the step is taken in f32 "
                  "(mistake: leaving the master's gradient in bf16)",
                  w.grad().dtype() == f32);
        LAB_CHECK("the copy's bf16 gradient [2, 4] arrives in the master as [2, 4]",
                  w.grad().to_vector() == std::vector<double>{2.0, 4.0});
        const Tensor copy_grad = c.grad();
        CAPTURE(copy_grad);
        LAB_CHECK("the copy's .grad is cleared (undefined), or the next backward adds to it "
                  "(mistake: not clearing the copy's gradient)",
                  copy_grad.defined() == false);
        copy_grads_to_masters({c}, {w});  // no gradient on the copy now: the master keeps its own
        LAB_CHECK("a copy without a gradient leaves its master's .grad as it was: [2, 4]",
                  w.grad().to_vector() == std::vector<double>{2.0, 4.0});
    }

    TEST_CASE("lab 04.3: master_sgd_step updates in f32 and refreshes the copy")
    {
        const Tensor w = ones({1}).requires_grad_();
        const Tensor c = ones({1}, bf16).requires_grad_();  // its bf16 copy (made by hand)
        w.set_grad(ones({1}));
        master_sgd_step({w}, {c}, 1e-4);
        LAB_CHECK("the f32 master keeps the small update: 1 - 1e-4 x 1 = 0.9999 "
                  "(mistake: stepping the bf16 copy instead of the f32 master)",
                  w.item() == doctest::Approx(0.9999).epsilon(1e-7));
        LAB_CHECK("bf16's numbers just below 1 are 2^-8 apart: 0.9999 rounds to 1, so the copy still reads 1",
                  c.item() == 1.0);
        for (int i = 1; i < 100; ++i) master_sgd_step({w}, {c}, 1e-4);
        LAB_CHECK("after 100 steps of 1e-4 the f32 master is 0.99: none of them was lost "
                  "(mistake: stepping the bf16 copy instead of the f32 master)",
                  w.item() == doctest::Approx(0.99).epsilon(1e-5));
        LAB_CHECK("the copy is refreshed from the master: 0.98828125, the bf16 number nearest 0.99",
                  c.item() == 0.98828125);
        LAB_CHECK("the copy stays bf16",
                  c.dtype() == bf16);
        LAB_CHECK("the master stays f32",
                  w.dtype() == f32);
    }
}
