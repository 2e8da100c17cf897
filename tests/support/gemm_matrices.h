#pragma once
// Random matrices stored as a GEMM kernel reads them: row-major with a leading dimension larger
// than the row, so the `gap` elements after each row are memory the kernel must leave alone.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/cpu/elementwise.h"
#include "tinyamp/core/generator.h"

namespace tinyamp::test {

template <class T>
double value_of(T x)
{
    return double(kernels::cpu::load(x));
}

template <class T>
struct Stored {
    std::int64_t rows, cols, ld;
    std::vector<T> data;
    double at(std::int64_t r, std::int64_t c) const { return value_of(data[std::size_t(r * ld + c)]); }
};

/// Uniform values in [-1, 1), rounded to T; leading dimension cols + gap.
template <class T>
Stored<T> random_matrix(std::int64_t rows, std::int64_t cols, Generator& gen, std::int64_t gap)
{
    Stored<T> m{rows, cols, cols + gap, {}};
    m.data.resize(std::size_t(std::max<std::int64_t>(rows * m.ld, 1)));
    for (T& x : m.data) x = T(2.0 * gen.uniform() - 1.0);
    return m;
}

}  // namespace tinyamp::test
