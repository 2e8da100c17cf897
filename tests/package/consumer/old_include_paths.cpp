// A program written against tinyamp 0.1's include paths: the forwarding headers (compat/) must
// keep it compiling for one release after issue 40 moved the headers into one-floor folders.
#include <tinyamp/amp/grad_scaler.h>
#include <tinyamp/autograd/function.h>
#include <tinyamp/autograd/gradcheck.h>
#include <tinyamp/core/dtype.h>
#include <tinyamp/core/factories.h>
#include <tinyamp/core/tensor.h>
#include <tinyamp/dispatch.h>
#include <tinyamp/nn/linear.h>
#include <tinyamp/ops/elementwise.h>

#include <iostream>

int main()
{
    using namespace tinyamp;
    const Tensor x = full({2}, 1.5, DType::f32);
    amp::GradScaler scaler("cpu");
    nn::Linear layer(3, 2);
    std::cout << "old include paths: " << dtype_name(x.dtype()) << " " << x.numel() << " scale " << scaler.get_scale() << '\n';
    return x.numel() == 2 && layer.weight.numel() == 6 ? 0 : 1;
}
