#include "kernels/cpu/strided_copy.h"

#include <cstring>
#include <vector>

namespace tinyamp::kernels::cpu {

void strided_copy(const void* src, const std::int64_t* shape, const std::int64_t* strides, int ndim,
                  std::int64_t element_size, void* dst)
{
    auto* out = static_cast<unsigned char*>(dst);
    const auto* in = static_cast<const unsigned char*>(src);
    std::int64_t total = 1;
    for (int d = 0; d < ndim; ++d) total *= shape[d];
    if (total == 0) return;
    if (ndim == 0) {
        std::memcpy(out, in, std::size_t(element_size));
        return;
    }
    // The innermost dimension is the row; an odometer over the outer dimensions finds each row.
    const std::int64_t row = shape[ndim - 1], row_stride = strides[ndim - 1];
    const std::int64_t row_bytes = row * element_size;
    std::vector<std::int64_t> counter(std::size_t(ndim), 0);
    std::int64_t offset = 0;  // in elements, of the current row's start
    for (std::int64_t done = 0; done < total; done += row) {
        const unsigned char* row_start = in + offset * element_size;
        if (row_stride == 1) {
            std::memcpy(out, row_start, std::size_t(row_bytes));
        } else {
            for (std::int64_t j = 0; j < row; ++j)
                std::memcpy(out + j * element_size, row_start + j * row_stride * element_size, std::size_t(element_size));
        }
        out += row_bytes;
        for (int d = ndim - 2; d >= 0; --d) {  // advance the odometer
            offset += strides[d];
            if (++counter[std::size_t(d)] < shape[d]) break;
            offset -= strides[d] * shape[d];
            counter[std::size_t(d)] = 0;
        }
    }
}

}  // namespace tinyamp::kernels::cpu
