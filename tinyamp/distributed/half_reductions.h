#pragma once
// The MPI reductions tinyamp defines itself (internal to tinyamp/distributed/): SUM of bf16 and
// f16 that adds in f32 and rounds to the 16-bit dtype at every step, as NCCL's bf16 and f16 ring
// reductions do, and MAX of every float dtype that lets NaN win, as torch.max does (MPI_MAX
// leaves NaN to the C comparison, which drops it or not by the order of the operands).

#include <mpi.h>

#include "tinyamp/values/dtype.h"

namespace tinyamp::distributed::detail {

/// Made after MPI_Init (MPI_Op_create), freed before MPI_Finalize.
void create_half_reductions();
void free_half_reductions();

/// The MPI datatype a float dtype's elements travel as: MPI_DOUBLE, MPI_FLOAT, or MPI_UINT16_T
/// (f16 and bf16, which MPI has no arithmetic for: tinyamp's reductions read their bits).
MPI_Datatype float_datatype(DType dtype);
/// The reduction for `dtype` (a float dtype): tinyamp's SUM for f16/bf16 and MAX for every dtype,
/// MPI_SUM for f32/f64. `max` chooses MAX, else SUM.
MPI_Op reduction(DType dtype, bool max);

}  // namespace tinyamp::distributed::detail
