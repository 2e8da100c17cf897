#include "kernels/cpu/strided_copy.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cpu/worker_pool.h"
#include "tinyamp/support/parallel.h"

namespace tinyamp::kernels::cpu {

namespace {

// Visits rows [first, last) of a strided view in row-major order, calling copy_row(view_row_start,
// k) for the k-th row; rows are along the last dimension, whose stride the callback handles.
template <class CopyRow>
void for_each_row(const std::int64_t* shape, const std::int64_t* strides, int ndim, std::int64_t first, std::int64_t last, CopyRow copy_row)
{
    std::vector<std::int64_t> counter(std::size_t(ndim), 0);
    std::int64_t offset = 0;  // in elements, of the current row's start
    std::int64_t rest = first;
    for (int d = ndim - 2; d >= 0; --d) {  // the odometer at row `first`
        counter[std::size_t(d)] = rest % shape[d];
        rest /= shape[d];
        offset += counter[std::size_t(d)] * strides[d];
    }
    for (std::int64_t k = first; k < last; ++k) {
        copy_row(offset, k);
        for (int d = ndim - 2; d >= 0; --d) {  // advance the odometer
            offset += strides[d];
            if (++counter[std::size_t(d)] < shape[d]) break;
            offset -= strides[d] * shape[d];
            counter[std::size_t(d)] = 0;
        }
    }
}

// Copies n elements of `bytes` bytes each, read every `from_step` and written every `to_step`
// elements. The usual element sizes get a typed loop (one load and store per element); the
// memcpy per element that the general case does costs a call each.
template <class T>
void copy_elements(const unsigned char* from, std::int64_t from_step, unsigned char* to, std::int64_t to_step, std::int64_t n)
{
    for (std::int64_t j = 0; j < n; ++j) std::memcpy(to + j * to_step * std::int64_t(sizeof(T)), from + j * from_step * std::int64_t(sizeof(T)), sizeof(T));
}

void copy_strided_row(const unsigned char* from, std::int64_t from_step, unsigned char* to, std::int64_t to_step, std::int64_t n,
                      std::int64_t bytes)
{
    switch (bytes) {
    case 1: return copy_elements<std::uint8_t>(from, from_step, to, to_step, n);
    case 2: return copy_elements<std::uint16_t>(from, from_step, to, to_step, n);
    case 4: return copy_elements<std::uint32_t>(from, from_step, to, to_step, n);
    case 8: return copy_elements<std::uint64_t>(from, from_step, to, to_step, n);
    default:
        for (std::int64_t j = 0; j < n; ++j) std::memcpy(to + j * to_step * bytes, from + j * from_step * bytes, std::size_t(bytes));
    }
}

// What strided_copy and strided_scatter share: moves every element between a strided view (shape,
// strides) and a contiguous row-major buffer, out of the view (into_view false) or into it. Large
// views are shared out between the threads by rows (kElementwiseGrain elements a part at least).
void move_rows(const unsigned char* from_base, unsigned char* to_base, const std::int64_t* shape, const std::int64_t* strides, int ndim,
               std::int64_t element_size, bool into_view)
{
    std::int64_t total = 1;
    for (int d = 0; d < ndim; ++d) total *= shape[d];
    if (total == 0) return;
    const std::int64_t row = ndim ? shape[ndim - 1] : 1, step = ndim ? strides[ndim - 1] : 1;
    const auto copy_row = [&](std::int64_t offset, std::int64_t k) {
        const std::int64_t in_view = offset * element_size, in_packed = k * row * element_size;
        const unsigned char* from = from_base + (into_view ? in_packed : in_view);
        unsigned char* to = to_base + (into_view ? in_view : in_packed);
        if (step == 1)
            std::memcpy(to, from, std::size_t(row * element_size));
        else
            copy_strided_row(from, into_view ? 1 : step, to, into_view ? step : 1, row, element_size);
    };
    const std::int64_t rows = total / row, rows_per_part = row >= kElementwiseGrain ? 1 : kElementwiseGrain / row;
    run_ranges(rows, rows_per_part, get_num_threads(),
               [&](std::int64_t first, std::int64_t last) { for_each_row(shape, strides, ndim, first, last, copy_row); });
}

}  // namespace

void strided_copy(const void* src, const std::int64_t* shape, const std::int64_t* strides, int ndim, std::int64_t element_size,
                  void* dst)
{
    move_rows(static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst), shape, strides, ndim, element_size, false);
}

void strided_scatter(const void* src, const std::int64_t* shape, const std::int64_t* strides, int ndim, std::int64_t element_size,
                     void* dst)
{
    move_rows(static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst), shape, strides, ndim, element_size, true);
}

}  // namespace tinyamp::kernels::cpu
