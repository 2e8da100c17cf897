#include "tinyamp/distributed/half_reductions.h"

#include <cmath>

#include "tinyamp/support/error.h"
#include "tinyamp/values/half.h"

namespace tinyamp::distributed::detail {
namespace {

// MPI calls these with `in` from another rank and `inout` holding this step's partial result:
// inout[i] = combine(in[i], inout[i]).
template <class T>
void sum_16bit(void* in, void* inout, int* len, MPI_Datatype*)
{
    const T* a = static_cast<const T*>(in);
    T* b = static_cast<T*>(inout);
    for (int i = 0; i < *len; ++i) b[i] = T(float(a[i]) + float(b[i]));  // added in f32, rounded once to T
}

template <class T>
void max_nan_wins(void* in, void* inout, int* len, MPI_Datatype*)
{
    const T* a = static_cast<const T*>(in);
    T* b = static_cast<T*>(inout);
    for (int i = 0; i < *len; ++i) {
        const double x = double(a[i]), y = double(b[i]);
        if (std::isnan(x) || x > y) b[i] = a[i];  // NaN in b stays: x > NaN is false
    }
}

struct Reductions {
    MPI_Op sum_bf16 = MPI_OP_NULL, sum_f16 = MPI_OP_NULL;
    MPI_Op max_f64 = MPI_OP_NULL, max_f32 = MPI_OP_NULL, max_bf16 = MPI_OP_NULL, max_f16 = MPI_OP_NULL;
};

Reductions& reductions()
{
    static Reductions r;
    return r;
}

}  // namespace

void create_half_reductions()
{
    Reductions& r = reductions();
    MPI_Op_create(&sum_16bit<BFloat16>, /*commute=*/1, &r.sum_bf16);
    MPI_Op_create(&sum_16bit<Half>, 1, &r.sum_f16);
    MPI_Op_create(&max_nan_wins<double>, 1, &r.max_f64);
    MPI_Op_create(&max_nan_wins<float>, 1, &r.max_f32);
    MPI_Op_create(&max_nan_wins<BFloat16>, 1, &r.max_bf16);
    MPI_Op_create(&max_nan_wins<Half>, 1, &r.max_f16);
}

void free_half_reductions()
{
    Reductions& r = reductions();
    for (MPI_Op* op : {&r.sum_bf16, &r.sum_f16, &r.max_f64, &r.max_f32, &r.max_bf16, &r.max_f16})
        if (*op != MPI_OP_NULL) MPI_Op_free(op);
}

MPI_Datatype float_datatype(DType dtype)
{
    switch (dtype) {
    case DType::f64: return MPI_DOUBLE;
    case DType::f32: return MPI_FLOAT;
    case DType::f16:
    case DType::bf16: return MPI_UINT16_T;
    default: TINYAMP_FAIL(dtype, "a reduction over processes needs a float dtype (f64, f32, f16, bf16), got ", dtype_name(dtype));
    }
}

MPI_Op reduction(DType dtype, bool max)
{
    const Reductions& r = reductions();
    switch (dtype) {
    case DType::f64: return max ? r.max_f64 : MPI_SUM;
    case DType::f32: return max ? r.max_f32 : MPI_SUM;
    case DType::bf16: return max ? r.max_bf16 : r.sum_bf16;
    case DType::f16: return max ? r.max_f16 : r.sum_f16;
    default: TINYAMP_FAIL(dtype, "a reduction over processes needs a float dtype (f64, f32, f16, bf16), got ", dtype_name(dtype));
    }
}

}  // namespace tinyamp::distributed::detail
