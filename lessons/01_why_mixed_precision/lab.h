#pragma once
// Lab 01: counting bytes. Write these in lab.cpp; check them with:  scripts/lab check 01
#include <functional>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lab01 {

/// The bytes a tensor's elements take: its number of elements times the size of its dtype.
std::int64_t bytes_of(const Tensor& t);

/// The bytes all of a module's parameters take, in whatever dtypes they are.
std::int64_t parameter_bytes(const nn::Module& module);

/// Calls `make` and returns how many bytes of `dtype` the allocator holds for its result: the
/// live bytes of `dtype` after the call minus those before (read them with memory_stats()).
std::int64_t bytes_allocated_by(const std::function<Tensor()>& make, DType dtype);

}  // namespace tinyamp::lab01
