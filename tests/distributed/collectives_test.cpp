// tinyamp/distributed/collectives.h across the processes mpirun started (2 in CTest; the cases
// that need exactly 2 say so and pass trivially with another count): each collective's values,
// bf16 sums rounded as bf16, NaN winning MAX, and the disagreements that must fail on every rank
// alike without hanging.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tinyamp/distributed/collectives.h"
#include "tinyamp/distributed/process_group.h"
#include "tests/distributed/mlp_replicas.h"

using namespace tinyamp;
namespace dist = tinyamp::distributed;

namespace {
int rank() { return dist::get_rank(); }
int size() { return dist::get_world_size(); }
}  // namespace

TEST_CASE("the group: ranks 0 .. world_size - 1, and a barrier")
{
    CHECK(dist::is_initialized());
    CHECK(size() >= 1);
    CHECK(rank() >= 0);
    CHECK(rank() < size());
    dist::barrier();
    MESSAGE(dist::rank_name());
}

TEST_CASE("all_reduce sums, takes the max and the average, in f64 and f32")
{
    for (DType dtype : {f64, f32}) {
        CAPTURE(dtype_name(dtype));
        const Tensor t = full({3}, double(rank() + 1), dtype);
        dist::all_reduce(t);
        const double total = size() * (size() + 1) / 2.0;
        CHECK(t.to_vector() == std::vector<double>(3, total));
        const Tensor m = tensor({double(rank()), -double(rank())}).to(dtype);
        dist::all_reduce(m, dist::ReduceOp::MAX);
        CHECK(m.to_vector() == std::vector<double>{double(size() - 1), 0.0});
        const Tensor a = full({2}, double(rank()), dtype);
        dist::all_reduce(a, dist::ReduceOp::AVG);
        CHECK(a.to_vector() == std::vector<double>(2, (size() - 1) / 2.0));
    }
}

TEST_CASE("a bf16 all_reduce rounds its sum to bf16, as NCCL's bf16 ring does, f32 keeps the small update")
{
    if (size() != 2) {
        MESSAGE("needs 2 ranks");
        return;
    }
    // Rank 0 holds 1, rank 1 holds 2^-9: the sum 1 + 2^-9 is below half of bf16's spacing at 1
    // (2^-7), so bf16 rounds it back to 1.
    const double mine = rank() == 0 ? 1.0 : std::ldexp(1.0, -9);
    const Tensor b = full({4}, mine, bf16), f = full({4}, mine, f32);
    dist::all_reduce(b);
    dist::all_reduce(f);
    CHECK(b.to_vector() == std::vector<double>(4, 1.0));
    CHECK(f.to_vector() == std::vector<double>(4, 1.0 + std::ldexp(1.0, -9)));
    // f16 (spacing 2^-10 at 1) keeps it.
    const Tensor h = full({1}, mine, f16);
    dist::all_reduce(h);
    CHECK(h.item() == 1.0 + std::ldexp(1.0, -9));
}

TEST_CASE("MAX lets NaN win in every float dtype, as torch.max does")
{
    for (DType dtype : {f64, f32, f16, bf16}) {
        CAPTURE(dtype_name(dtype));
        const Tensor t = tensor({rank() == size() - 1 ? NAN : 1.0, 2.0}).to(dtype);
        dist::all_reduce(t, dist::ReduceOp::MAX);
        CHECK(std::isnan(t.to_vector()[0]));
        CHECK(t.to_vector()[1] == 2.0);
    }
}

TEST_CASE("broadcast copies the source rank's tensor, any dtype")
{
    const int src = size() - 1;
    const Tensor t = full({2, 2}, double(rank() * 10 + 7), i64);
    dist::broadcast(t, src);
    CHECK(t.to_vector() == std::vector<double>(4, double(src * 10 + 7)));
}

TEST_CASE("all_gather_into_tensor puts rank r's tensor r-th, reduce_scatter_tensor keeps rank r's slice of the sum")
{
    const Tensor mine = full({2}, double(rank()), bf16);
    const Tensor all = zeros({size(), 2}, bf16);
    dist::all_gather_into_tensor(all, mine);
    for (int r = 0; r < size(); ++r) CHECK(all.select(0, r).to_vector() == std::vector<double>(2, double(r)));

    std::vector<double> values;  // rank r contributes r + 1 to every element; element j of slice s is j + s
    for (int s = 0; s < size(); ++s)
        for (int j = 0; j < 3; ++j) values.push_back(double(j + s) * (rank() + 1));
    const Tensor input = tensor(values, {size() * 3});
    const Tensor out = zeros({3});
    dist::reduce_scatter_tensor(out, input);
    const double ranks = size() * (size() + 1) / 2.0;
    CHECK(out.to_vector() == std::vector<double>{rank() * ranks, (rank() + 1) * ranks, (rank() + 2) * ranks});
}

TEST_CASE("ranks that disagree on a collective all fail with each rank's call named, and the group goes on")
{
    if (size() != 2) {
        MESSAGE("needs 2 ranks");
        return;
    }
    const Tensor t = zeros({rank() == 0 ? 3 : 4});
    const std::string message = test::error_of([&] { dist::all_reduce(t); });
    CHECK(message.find("rank 0: all_reduce of 3 f32 elements, SUM") != std::string::npos);
    CHECK(message.find("rank 1: all_reduce of 4 f32 elements, SUM") != std::string::npos);
    // Different dtypes, then different collectives.
    const std::string dtypes = test::error_of([&] { dist::all_reduce(zeros({2}, rank() == 0 ? f32 : bf16)); });
    CHECK(dtypes.find("rank 1: all_reduce of 2 bf16 elements") != std::string::npos);
    const std::string calls = test::error_of([&] {
        if (rank() == 0)
            dist::all_reduce(zeros({2}));
        else
            dist::broadcast(zeros({2}), 0);
    });
    CHECK(calls.find("rank 1: broadcast of 2 f32 elements from rank 0") != std::string::npos);
    // Nothing was exchanged, and the next collective works.
    const Tensor ok = ones({2});
    dist::all_reduce(ok);
    CHECK(ok.to_vector() == std::vector<double>(2, 2.0));
}

TEST_CASE("a rank that refuses its own arguments says why, and every other rank fails too instead of waiting")
{
    if (size() != 2) {
        MESSAGE("needs 2 ranks");
        return;
    }
    const Tensor square = zeros({2, 2});
    const Tensor t = rank() == 1 ? square.t() : zeros({2, 2});  // rank 1's is not contiguous
    const std::string message = test::error_of([&] { dist::all_reduce(t); });
    if (rank() == 1)
        CHECK(message.find("not contiguous") != std::string::npos);
    else
        CHECK(message.find("rank 1 refused its arguments") != std::string::npos);
    // Integers cannot be reduced: every rank says so.
    const std::string ints = test::error_of([&] { dist::all_reduce(zeros({2}, i64)); });
    CHECK(ints.find("reductions take f64, f32, f16 or bf16") != std::string::npos);
    const std::string root = test::error_of([&] { dist::broadcast(zeros({1}), 5); });
    CHECK((root.find("ranks are 0 to 1") != std::string::npos || root.find("refused") != std::string::npos));
    const std::string sizes = test::error_of([&] { dist::all_gather_into_tensor(zeros({3}), zeros({2})); });
    CHECK(sizes.find("world_size x its elements") != std::string::npos);
}
