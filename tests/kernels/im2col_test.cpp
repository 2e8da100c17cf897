// im2col against its definition (each column entry is the input pixel it names, or 0 over the
// padding), and col2im as its adjoint: <im2col(x), c> == <x, col2im(c)> for any x and c.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "kernels/cpu/im2col.h"
#include "tests/support/tolerance.h"

using namespace tinyamp;
using kernels::cpu::Conv2dGeometry;
using tinyamp::test::check_close;

namespace {

// batch, channels, height, width, kernel h/w, stride h/w, pad h/w: square and not, strided,
// padded, padding wider than the kernel reaches, a kernel as large as the padded input.
const std::vector<Conv2dGeometry> kGeometries = {
    {2, 3, 5, 5, 3, 3, 1, 1, 0, 0}, {1, 2, 6, 4, 3, 2, 2, 1, 1, 0}, {2, 1, 7, 5, 2, 3, 3, 2, 2, 1},
    {1, 1, 1, 1, 3, 3, 1, 1, 1, 1}, {3, 2, 4, 4, 1, 1, 2, 2, 0, 0}, {1, 2, 3, 3, 3, 3, 1, 1, 2, 2},
};

std::string describe(const Conv2dGeometry& g)
{
    return detail::concat("x [", g.batch, ", ", g.channels, ", ", g.height, ", ", g.width, "], kernel [", g.kernel_h, ", ", g.kernel_w,
                          "], stride [", g.stride_h, ", ", g.stride_w, "], padding [", g.pad_h, ", ", g.pad_w, "]");
}

std::vector<double> random_values(std::int64_t n, Generator& gen)
{
    std::vector<double> v(static_cast<std::size_t>(n));
    for (double& x : v) x = gen.normal();
    return v;
}

std::int64_t input_size(const Conv2dGeometry& g) { return g.batch * g.channels * g.height * g.width; }

// cols[(c, ki, kj), (n, oy, ox)] straight from the definition in im2col.h.
double by_definition(const std::vector<double>& x, const Conv2dGeometry& g, std::int64_t row, std::int64_t col)
{
    const std::int64_t c = row / (g.kernel_h * g.kernel_w), ki = row / g.kernel_w % g.kernel_h, kj = row % g.kernel_w;
    const std::int64_t per_image = g.out_height() * g.out_width();
    const std::int64_t n = col / per_image, oy = col % per_image / g.out_width(), ox = col % g.out_width();
    const std::int64_t iy = oy * g.stride_h - g.pad_h + ki, ix = ox * g.stride_w - g.pad_w + kj;
    if (iy < 0 || iy >= g.height || ix < 0 || ix >= g.width) return 0.0;
    return x[std::size_t(((n * g.channels + c) * g.height + iy) * g.width + ix)];
}

template <class T>
void check_im2col_definition(const Conv2dGeometry& g, std::uint64_t seed)
{
    INFO(describe(g) << ", " << std::string(dtype_name(dtype_of<T>())) << ", seed " << seed);
    Generator gen(seed);
    std::vector<T> x;
    for (double v : random_values(input_size(g), gen)) x.push_back(T(v));
    std::vector<double> x_values(x.begin(), x.end());  // the rounded inputs
    std::vector<T> cols(std::size_t(g.col_rows() * g.col_cols()), T(99.0));
    kernels::cpu::im2col(x.data(), g, cols.data());
    int wrong = 0;
    for (std::int64_t r = 0; r < g.col_rows(); ++r)
        for (std::int64_t c = 0; c < g.col_cols(); ++c)
            if (double(cols[std::size_t(r * g.col_cols() + c)]) != by_definition(x_values, g, r, c)) ++wrong;
    CHECK(wrong == 0);  // a copy: exact
}

}  // namespace

TEST_CASE("im2col copies each input pixel to the columns that see it, zeros over the padding")
{
    std::uint64_t seed = 1;
    for (const Conv2dGeometry& g : kGeometries) {
        check_im2col_definition<double>(g, ++seed);
        check_im2col_definition<float>(g, ++seed);
        check_im2col_definition<Half>(g, ++seed);
        check_im2col_definition<BFloat16>(g, ++seed);
    }
}

TEST_CASE("output sizes follow PyTorch's formula")
{
    const Conv2dGeometry g{1, 1, 7, 5, 2, 3, 3, 2, 2, 1};
    CHECK(g.out_height() == (7 + 4 - 2) / 3 + 1);
    CHECK(g.out_width() == (5 + 2 - 3) / 2 + 1);
    CHECK(g.col_rows() == 1 * 2 * 3);
    CHECK(g.col_cols() == g.out_height() * g.out_width());
}

TEST_CASE("col2im is the adjoint of im2col")
{
    std::uint64_t seed = 50;
    for (const Conv2dGeometry& g : kGeometries) {
        INFO(describe(g) << ", seed " << seed + 1);
        Generator gen(++seed);
        const std::vector<double> x = random_values(input_size(g), gen);
        const std::vector<double> c = random_values(g.col_rows() * g.col_cols(), gen);
        std::vector<double> cols(c.size()), back(x.size(), 0.0);
        kernels::cpu::im2col(x.data(), g, cols.data());
        kernels::cpu::col2im(c.data(), g, back.data());
        // Both sides sum the same products x_i c_j in different orders: f64 rounding of a sum of
        // `terms` products is within about `terms` ulps of their absolute sum.
        double lhs = 0, rhs = 0, magnitude = 0;
        for (std::size_t i = 0; i < c.size(); ++i) {
            lhs += cols[i] * c[i];
            magnitude += std::abs(cols[i] * c[i]);
        }
        for (std::size_t i = 0; i < x.size(); ++i) rhs += x[i] * back[i];
        check_close(scalar_tensor(rhs, f64), scalar_tensor(lhs, f64), f64, double(c.size()), magnitude);
    }
}

TEST_CASE("col2im adds onto the input instead of overwriting it")
{
    const Conv2dGeometry g{2, 2, 4, 5, 3, 2, 1, 2, 1, 1};
    Generator gen(7);
    const std::vector<double> start = random_values(input_size(g), gen);
    const std::vector<double> c = random_values(g.col_rows() * g.col_cols(), gen);
    std::vector<double> onto = start, alone(start.size(), 0.0);
    kernels::cpu::col2im(c.data(), g, onto.data());
    kernels::cpu::col2im(c.data(), g, alone.data());
    std::vector<double> sum;
    for (std::size_t i = 0; i < start.size(); ++i) sum.push_back(start[i] + alone[i]);
    const Shape shape{g.batch, g.channels, g.height, g.width};
    check_close(tensor(onto, shape, f64), tensor(sum, shape, f64), f64);  // one extra rounding per pixel
}

TEST_CASE("col2im sums each bf16 pixel in f32 and rounds once")
{
    // A 3x3 kernel over a 3x3 image padded by 2: every pixel is seen by 9 patches. Starting from
    // 256 and adding nine 1s gives 265, which rounds to 264 in bf16; added one at a time in bf16,
    // each 256 + 1 would round back to 256.
    const Conv2dGeometry g{1, 1, 3, 3, 3, 3, 1, 1, 2, 2};
    std::vector<BFloat16> x(9, BFloat16(256.0f));
    const std::vector<BFloat16> cols(std::size_t(g.col_rows() * g.col_cols()), BFloat16(1.0f));
    kernels::cpu::col2im(cols.data(), g, x.data());
    for (BFloat16 v : x) CHECK(float(v) == 264.0f);
}
