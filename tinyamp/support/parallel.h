#pragma once
/// \file
/// How many threads tinyamp's CPU kernels may use, as torch.set_num_threads / get_num_threads.
///
/// Only the fast GEMM is threaded; it uses up to this many threads for products big enough to
/// repay them. The default is 2: the machines tinyamp is taught on have two cores.

namespace tinyamp {

/// Sets the most threads a CPU kernel may use (1 or more; Error(value) otherwise).
void set_num_threads(int threads);
/// The current limit (2 unless set_num_threads changed it).
int get_num_threads();

}  // namespace tinyamp
