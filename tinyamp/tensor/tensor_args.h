#pragma once
/// \file
/// The one walk over an op's arguments: which of them are tensors. An op takes tensors, lists of
/// tensors (cat, stack) and other values (a dim, a dtype, a flag); the dispatcher's layers need
/// the tensors, in argument order, to find the devices and gradients (autograd) and to cast them
/// (autocast, custom_fwd). An undefined Tensor (a missing bias) counts as a tensor.

#include <vector>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp {

/// \name Walking the tensors of one argument
/// @{

/// Calls fn(t) for a tensor argument.
template <class Fn>
void for_each_tensor(const Tensor& t, Fn&& fn)
{
    fn(t);
}
/// Calls fn(t) for each tensor of a list, in order.
template <class Fn>
void for_each_tensor(const std::vector<Tensor>& ts, Fn&& fn)
{
    for (const Tensor& t : ts) fn(t);
}
/// Any other argument holds no tensor.
template <class A, class Fn>
void for_each_tensor(const A&, Fn&&)
{
}

/// A tensor argument replaced by fn(t).
template <class Fn>
Tensor map_tensors(const Tensor& t, Fn&& fn)
{
    return fn(t);
}
/// A list with each tensor replaced by fn(t).
template <class Fn>
std::vector<Tensor> map_tensors(const std::vector<Tensor>& ts, Fn&& fn)
{
    std::vector<Tensor> out;
    out.reserve(ts.size());
    for (const Tensor& t : ts) out.push_back(fn(t));
    return out;
}
/// Any other argument, as it is.
template <class A, class Fn>
const A& map_tensors(const A& a, Fn&&)
{
    return a;
}
/// @}

/// The tensors among `args`, in argument order.
template <class... Args>
std::vector<Tensor> tensors_in(const Args&... args)
{
    std::vector<Tensor> out;
    out.reserve(sizeof...(Args));  // one allocation (more only for a list of tensors, as in cat)
    (for_each_tensor(args, [&](const Tensor& t) { out.push_back(t); }), ...);
    return out;
}

}  // namespace tinyamp
