#pragma once
// tinyamp: a small C++ tensor library for learning mixed-precision training.
// Include this one header: #include <tinyamp/tinyamp.h>

#include "tinyamp/core/device.h"     // Device::cpu(), Device::cuda(i)
#include "tinyamp/core/dtype.h"      // DType f64/f32/f16/bf16/i64/bool, traits(), Half, BFloat16
#include "tinyamp/core/error.h"      // tinyamp::Error
#include "tinyamp/core/factories.h"  // tensor, zeros, ones, full, arange, rand, randn
#include "tinyamp/core/generator.h"  // Generator, manual_seed
#include "tinyamp/core/shape.h"      // Shape, Strides
#include "tinyamp/core/storage.h"    // memory_stats(), reset_peak_memory_stats()
#include "tinyamp/core/tensor.h"     // Tensor
#include "tinyamp/version.h"
