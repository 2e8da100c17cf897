#include "kernels/cpu/im2col.h"

#include <algorithm>
#include <vector>

#include "kernels/cpu/elementwise_loops.h"

namespace tinyamp::kernels::cpu {

// Both directions walk the same (c, ki, kj) x (n, oy, ox) grid; `visit(row_offset, pixel)` is
// called for every column entry whose input pixel lies inside the image, with `pixel` the
// offset of that pixel inside its [height, width] plane. Entries over the padding are skipped.
template <class Visit>
void for_each_tap(const Conv2dGeometry& g, std::int64_t n, std::int64_t c, Visit visit)
{
    const std::int64_t oh = g.out_height(), ow = g.out_width(), ld = g.col_cols();
    const std::int64_t image_cols = n * oh * ow;  // where image n's columns start
    for (std::int64_t ki = 0; ki < g.kernel_h; ++ki) {
        for (std::int64_t kj = 0; kj < g.kernel_w; ++kj) {
            const std::int64_t row = (c * g.kernel_h + ki) * g.kernel_w + kj;
            for (std::int64_t oy = 0; oy < oh; ++oy) {
                const std::int64_t iy = oy * g.stride_h - g.pad_h + ki;
                if (iy < 0 || iy >= g.height) continue;
                for (std::int64_t ox = 0; ox < ow; ++ox) {
                    const std::int64_t ix = ox * g.stride_w - g.pad_w + kj;
                    if (ix < 0 || ix >= g.width) continue;
                    visit(row * ld + image_cols + oy * ow + ox, iy * g.width + ix);
                }
            }
        }
    }
}

template <class T>
void im2col(const T* x, const Conv2dGeometry& g, T* cols)
{
    std::fill(cols, cols + g.col_rows() * g.col_cols(), T(0.0f));  // the padding reads as zeros
    for (std::int64_t n = 0; n < g.batch; ++n)
        for (std::int64_t c = 0; c < g.channels; ++c) {
            const T* plane = x + (n * g.channels + c) * g.height * g.width;
            for_each_tap(g, n, c, [&](std::int64_t at, std::int64_t pixel) { cols[at] = plane[pixel]; });
        }
}

template <class T>
void col2im(const T* cols, const Conv2dGeometry& g, T* x)
{
    // One plane at a time in the accumulation type, so each pixel is rounded once.
    std::vector<compute_t<T>> sum(static_cast<std::size_t>(g.height * g.width));
    for (std::int64_t n = 0; n < g.batch; ++n)
        for (std::int64_t c = 0; c < g.channels; ++c) {
            T* plane = x + (n * g.channels + c) * g.height * g.width;
            for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = load(plane[i]);
            for_each_tap(g, n, c, [&](std::int64_t at, std::int64_t pixel) { sum[std::size_t(pixel)] += load(cols[at]); });
            for (std::size_t i = 0; i < sum.size(); ++i) plane[i] = store<T>(sum[i]);
        }
}

#define TINYAMP_INSTANTIATE_IM2COL(T)                             \
    template void im2col<T>(const T*, const Conv2dGeometry&, T*); \
    template void col2im<T>(const T*, const Conv2dGeometry&, T*);
TINYAMP_INSTANTIATE_IM2COL(float)
TINYAMP_INSTANTIATE_IM2COL(double)
TINYAMP_INSTANTIATE_IM2COL(Half)
TINYAMP_INSTANTIATE_IM2COL(BFloat16)
#undef TINYAMP_INSTANTIATE_IM2COL

}  // namespace tinyamp::kernels::cpu
