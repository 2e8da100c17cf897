#pragma once
// The one road every op takes. tinyamp::matmul(a, b), x.transpose(0, 1), a user's
// MyFunction::apply(x): all of them come here, so whatever is added here (autocast, the trace)
// sees every op.
//
//   dispatch<Op>(args...)
//     1. autocast layer: casts the tensor arguments as the op's policy says (added with autocast)
//     2. autograd layer: records a Node if an input requires grad (autograd/record.h)
//     3. Op::forward:    checks shapes and computes the result with kernels (ops/*.cpp)

#include "tinyamp/autograd/record.h"

namespace tinyamp {

template <class Op, class... Args>
Tensor dispatch(const Args&... args)
{
    return autograd::run<Op>(args...);
}

}  // namespace tinyamp
