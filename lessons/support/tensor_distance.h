#pragma once
// How far one tensor is from another, over all elements, computed in f64. Header-only, so that the
// lessons (through lesson.h) and the labs' checks, which link tinyamp alone, share one definition.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include <tinyamp/tinyamp.h>

namespace tinyamp::lesson {

/// ||a - b|| / ||b||: how far a low-precision result is from its f32 reference.
inline double relative_difference(const Tensor& a, const Tensor& b)
{
    const std::vector<double> va = a.to_vector(), vb = b.to_vector();
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < va.size(); ++i) {
        diff += (va[i] - vb[i]) * (va[i] - vb[i]);
        norm += vb[i] * vb[i];
    }
    return std::sqrt(diff / norm);
}

/// max |a - b|: the worst single element.
inline double max_abs_difference(const Tensor& a, const Tensor& b)
{
    const std::vector<double> va = a.to_vector(), vb = b.to_vector();
    double m = 0;
    for (std::size_t i = 0; i < va.size(); ++i) m = std::max(m, std::abs(va[i] - vb[i]));
    return m;
}

}  // namespace tinyamp::lesson
