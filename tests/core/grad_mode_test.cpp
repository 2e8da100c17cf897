#include <doctest/doctest.h>

#include <thread>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

TEST_CASE("NoGradGuard stops recording for its scope and restores the mode after")
{
    const Tensor x = ones({2}).requires_grad_();
    CHECK(is_grad_enabled());
    {
        NoGradGuard no_grad;
        CHECK_FALSE(is_grad_enabled());
        const Tensor y = mul(x, 2.0);
        CHECK_FALSE(y.requires_grad());
        CHECK(y.grad_fn() == nullptr);
        {
            GradModeGuard enable(true);  // guards nest
            CHECK(mul(x, 2.0).requires_grad());
        }
        CHECK_FALSE(is_grad_enabled());
    }
    CHECK(is_grad_enabled());
    CHECK(mul(x, 2.0).requires_grad());
}

TEST_CASE("grad mode is per thread")
{
    NoGradGuard no_grad;
    bool other_thread_enabled = false;
    std::thread([&] { other_thread_enabled = is_grad_enabled(); }).join();
    CHECK(other_thread_enabled);
    CHECK_FALSE(is_grad_enabled());
}
