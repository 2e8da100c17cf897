#pragma once
/// \file
/// tinyamp: a small C++ tensor library for learning mixed-precision training.
///
/// Include this one header: `#include <tinyamp/tinyamp.h>`. It brings in the whole public API:
/// tensors and dtypes (core), autograd, the ops, autocast and GradScaler (amp), the dispatcher,
/// traces, nn, optim, io and data; each include below says what it adds.

#include "tinyamp/engine/engine.h"     // backward()
#include "tinyamp/ops/function.h"   // Function<T>, Context
#include "tinyamp/support/grad_mode.h"  // NoGradGuard
#include "tinyamp/engine/gradcheck.h"  // gradcheck
#include "tinyamp/autograd/node.h"       // Node (the graph)
#include "tinyamp/values/device.h"     // Device::cpu(), Device::cuda(i)
#include "tinyamp/backends/cpu.h"  // backends::cpu::matmul_hardware(): what this CPU gives bf16
#include "tinyamp/values/dtype.h"      // DType f64/f32/f16/bf16/i64/bool and the FP8/FP4 ones, traits(), Half, BFloat16
#include "tinyamp/values/fp4_packing.h"  // minifloat::pack_fp4x2, unpack_fp4: two FP4 codes in a byte
#include "tinyamp/support/error.h"      // tinyamp::Error
#include "tinyamp/tensor/factories.h"  // tensor, zeros, ones, full, arange, rand, randn
#include "tinyamp/support/generator.h"  // Generator, manual_seed
#include "tinyamp/support/parallel.h"   // set_num_threads, get_num_threads
#include "tinyamp/values/shape.h"      // Shape, Strides
#include "tinyamp/tensor/storage.h"    // memory_stats(), reset_peak_memory_stats()
#include "tinyamp/tensor/tensor.h"     // Tensor
#include "tinyamp/amp/autocast.h"        // amp::autocast, autocast_function, clear_autocast_cache
#include "tinyamp/amp/cast_policy.h"     // amp::CastPolicy, amp::PolicyTable
#include "tinyamp/amp/custom_function.h" // amp::CustomFwd, amp::CustomBwd
#include "tinyamp/scaler/grad_scaler.h"     // amp::GradScaler
#include "tinyamp/amp/fp8_autocast.h"    // amp::fp8_autocast: Linear layers in FP8/MX (TE's region)
#include "tinyamp/values/scaling_recipe.h"  // amp::Float8CurrentScaling, DelayedScaling, MXBlockScaling, NVFP4BlockScaling
#include "tinyamp/support/warning.h"        // warn, set_warning_handler
#include "tinyamp/dispatch/dispatch.h"            // dispatch<Op>(...): the road every op takes
#include "tinyamp/trace/trace.h"         // trace::Trace, TraceRecorder: what ran, in which dtypes
#include "tinyamp/trace/op_timing.h"     // trace::OpTimingRecorder: where a step's time goes, per op
#include "tinyamp/ops/amp_scaling.h"     // GradScaler's ops: amp_foreach_non_finite_check_and_unscale_, amp_update_scale_
#include "tinyamp/ops/attention.h"       // scaled_dot_product_attention (fused), scaled_dot_product_attention_reference
#include "tinyamp/ops/conv.h"            // conv2d
#include "tinyamp/ops/elementwise.h"     // add, mul, exp, relu, gelu, where, masked_fill, ..., operators
#include "tinyamp/ops/embedding.h"       // embedding
#include "tinyamp/ops/float8.h"          // scaled_mm, to_float8, fp8_linear
#include "tinyamp/ops/join.h"            // cat, stack
#include "tinyamp/ops/loss.h"            // mse_loss, nll_loss, cross_entropy, binary_cross_entropy(_with_logits)
#include "tinyamp/ops/matmul.h"          // matmul, mm, bmm, addmm, linear
#include "tinyamp/ops/normalization.h"   // layer_norm, batch_norm
#include "tinyamp/ops/reduce.h"          // sum, mean, max, argmax
#include "tinyamp/ops/softmax.h"         // softmax, log_softmax
#include "tinyamp/ops/triangular.h"      // tril, triu
#include "tinyamp/ops/type_promotion.h"  // result_type
#include "tinyamp/optim/optimizer.h"     // optim::Optimizer, ParamGroup, state_dict
#include "tinyamp/optim/sgd.h"           // optim::SGD
#include "tinyamp/optim/adam.h"          // optim::Adam, optim::AdamW
#include "tinyamp/optim/lr_scheduler.h"  // optim::StepLR, CosineAnnealingLR, LambdaLR
#include "tinyamp/optim/clip_grad.h"     // optim::clip_grad_norm_
#include "tinyamp/nn/module.h"           // nn::Module: parameters, buffers, train/eval, to(dtype)
#include "tinyamp/nn/linear_layer.h"           // nn::Linear
#include "tinyamp/nn/embedding_layer.h"        // nn::Embedding
#include "tinyamp/nn/attention_layer.h"        // nn::CausalSelfAttention
#include "tinyamp/nn/conv_layer.h"             // nn::Conv2d
#include "tinyamp/nn/normalization_layers.h"    // nn::LayerNorm, nn::BatchNorm1d, nn::BatchNorm2d
#include "tinyamp/nn/activation_layers.h"       // nn::ReLU, nn::GELU
#include "tinyamp/nn/dropout_layer.h"          // nn::Dropout
#include "tinyamp/nn/flatten_layer.h"          // nn::Flatten
#include "tinyamp/nn/sequential.h"       // nn::Sequential
#include "tinyamp/nn/loss_layers.h"             // nn::CrossEntropyLoss, nn::MSELoss, ...
#include "tinyamp/support/atomic_file.h"      // io::write_file_atomically
#include "tinyamp/io/safetensors.h"      // io::save_safetensors, io::load_safetensors
#include "tinyamp/io/checkpoint.h"       // io::save_checkpoint, io::load_checkpoint
#include "tinyamp/data/data_loader.h"     // data::DataLoader, Batch
#include "tinyamp/data/datasets.h"        // data::load_digits, load_breast_cancer, data_path, train_test_split
#include "tinyamp/data/synthetic.h"       // data::make_blobs, make_moons, make_spirals
#include "tinyamp/data/char_tokenizer.h"  // data::CharTokenizer
#include "tinyamp/data/text.h"            // data::load_text, split_tokens, load_text_dataset, sample_batch
#include "tinyamp/version.h"
