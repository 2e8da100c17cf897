// The autocast region and its per-thread state (reference §2.1-2.3, §1.4 "when the cache is
// cleared", §4.2): defaults, what a region saves, sets and restores, nesting, the warnings that
// disable a region, the decorator form, and that two threads never see each other's state.
#include <doctest/doctest.h>

#include <barrier>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <tinyamp/amp/autocast.h>
#include <tinyamp/amp/autocast_state.h>
#include <tinyamp/amp/cast_policy.h>
#include <tinyamp/support/warning.h>
#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {

constexpr DeviceType cpu = DeviceType::cpu;
constexpr DeviceType cuda = DeviceType::cuda;

// Collects warnings while alive, then puts the previous handler back.
class CaptureWarnings {
public:
    CaptureWarnings()
        : previous_(set_warning_handler([this](const std::string& message) { messages.push_back(message); }))
    {
    }
    ~CaptureWarnings() { set_warning_handler(std::move(previous_)); }
    CaptureWarnings(const CaptureWarnings&) = delete;
    CaptureWarnings& operator=(const CaptureWarnings&) = delete;

    std::vector<std::string> messages;

private:
    WarningHandler previous_;
};

// Tests that set the thread's state by hand put the defaults back with this, even if a REQUIRE throws.
struct RestoreDefaultState {
    ~RestoreDefaultState()
    {
        for (DeviceType d : {cpu, cuda}) {
            amp::set_autocast_enabled(d, false);
            amp::set_autocast_table(d, nullptr);
        }
        amp::set_autocast_dtype(cpu, DType::bf16);
        amp::set_autocast_dtype(cuda, DType::f16);
        amp::set_autocast_cache_enabled(true);
    }
};

// The nesting depth of this thread, read through the counter's return values.
int nesting_depth()
{
    const int inside = amp::autocast_increment_nesting();
    amp::autocast_decrement_nesting();
    return inside - 1;
}

// A weight (an f32 leaf that requires grad: its bf16 cast is cached) and an input (not cached).
struct LinearInputs {
    Tensor w = ones({4, 4}).requires_grad_();
    Tensor x = ones({2, 4});
};

std::shared_ptr<const amp::PolicyTable> table_named(const std::string& name, const char* without_op)
{
    amp::PolicyTable table = amp::PolicyTable::cpu();
    table.set_name(name);
    table.remove(without_op);
    return std::make_shared<const amp::PolicyTable>(std::move(table));
}

const char* const kCpuDtypeWarning =
    "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
    "CPU Autocast only supports dtype of torch.bfloat16, torch.float16 currently.";

}  // namespace

TEST_CASE("test_autocast_fast_dtype: the default autocast dtypes are f16 on cuda and bf16 on cpu")
{
    CHECK(amp::get_autocast_dtype(cuda) == DType::f16);
    CHECK(amp::get_autocast_dtype(cpu) == DType::bf16);
    CHECK_FALSE(amp::is_autocast_enabled(cpu));
    CHECK_FALSE(amp::is_autocast_enabled(cuda));
    CHECK(amp::is_autocast_cache_enabled());
    CHECK(nesting_depth() == 0);
    CHECK(&amp::get_autocast_table(cpu) == &amp::PolicyTable::builtin(cpu));
    CHECK(&amp::get_autocast_table(cuda) == &amp::PolicyTable::builtin(cuda));
    CHECK(amp::get_autocast_table_override(cpu) == nullptr);
}

TEST_CASE("a new thread starts with autocast off and the default dtypes, whatever its parent's region")
{
    amp::autocast region("cpu", {.dtype = DType::f16, .cache_enabled = false, .table = table_named("parent", "mm")});
    REQUIRE(amp::is_autocast_enabled(cpu));
    bool enabled = true, cache_enabled = false, builtin_table = false;
    DType cpu_dtype = DType::f32, cuda_dtype = DType::f32;
    int depth = -1;
    std::thread child([&] {
        enabled = amp::is_autocast_enabled(cpu) || amp::is_autocast_enabled(cuda);
        cpu_dtype = amp::get_autocast_dtype(cpu);
        cuda_dtype = amp::get_autocast_dtype(cuda);
        cache_enabled = amp::is_autocast_cache_enabled();
        builtin_table = &amp::get_autocast_table(cpu) == &amp::PolicyTable::builtin(cpu);
        depth = nesting_depth();
    });
    child.join();
    CHECK_FALSE(enabled);
    CHECK(cpu_dtype == DType::bf16);
    CHECK(cuda_dtype == DType::f16);
    CHECK(cache_enabled);
    CHECK(builtin_table);
    CHECK(depth == 0);
}

TEST_CASE("is_autocast_enabled is true inside a region and false outside it")
{
    CHECK_FALSE(amp::is_autocast_enabled(cpu));
    const LinearInputs in;
    CHECK(linear(in.x, in.w).dtype() == DType::f32);
    {
        amp::autocast region("cpu");
        CHECK(region.enabled());
        CHECK(region.device_type() == cpu);
        CHECK(region.dtype() == DType::bf16);
        CHECK(amp::is_autocast_enabled(cpu));
        CHECK_FALSE(amp::is_autocast_enabled(cuda));  // only the region's device type
        CHECK(linear(in.x, in.w).dtype() == DType::bf16);
    }
    CHECK_FALSE(amp::is_autocast_enabled(cpu));
    CHECK(linear(in.x, in.w).dtype() == DType::f32);
}

TEST_CASE("the region saves, sets and restores enabled, dtype, cache_enabled and the table")
{
    RestoreDefaultState restore;
    const auto before_table = table_named("before", "bmm");
    const auto region_table = table_named("region", "mm");

    SUBCASE("from a disabled, f16, cache-off state into an enabled bf16 region")
    {
        amp::set_autocast_enabled(cpu, false);
        amp::set_autocast_dtype(cpu, DType::f16);
        amp::set_autocast_cache_enabled(false);
        amp::set_autocast_table(cpu, before_table);
        {
            amp::autocast region("cpu", {.dtype = DType::bf16, .cache_enabled = true, .table = region_table});
            CHECK(amp::is_autocast_enabled(cpu));
            CHECK(amp::get_autocast_dtype(cpu) == DType::bf16);
            CHECK(amp::is_autocast_cache_enabled());
            CHECK(amp::get_autocast_table_override(cpu) == region_table);
            CHECK(amp::get_autocast_table(cpu).name() == "region");
        }
        CHECK_FALSE(amp::is_autocast_enabled(cpu));
        CHECK(amp::get_autocast_dtype(cpu) == DType::f16);
        CHECK_FALSE(amp::is_autocast_cache_enabled());
        CHECK(amp::get_autocast_table_override(cpu) == before_table);
        CHECK(amp::get_autocast_table(cpu).name() == "before");
    }
    SUBCASE("from an enabled, bf16, cache-on state into a disabled f16 region")
    {
        amp::set_autocast_enabled(cpu, true);
        amp::set_autocast_cache_enabled(true);
        {
            amp::autocast region("cpu", {.dtype = DType::f16, .enabled = false, .cache_enabled = false});
            CHECK_FALSE(region.enabled());
            CHECK_FALSE(amp::is_autocast_enabled(cpu));
            CHECK(amp::get_autocast_dtype(cpu) == DType::f16);
            CHECK_FALSE(amp::is_autocast_cache_enabled());
            CHECK(amp::get_autocast_table_override(cpu) == nullptr);  // no .table: left as it was
        }
        CHECK(amp::is_autocast_enabled(cpu));
        CHECK(amp::get_autocast_dtype(cpu) == DType::bf16);
        CHECK(amp::is_autocast_cache_enabled());
        CHECK(amp::get_autocast_table_override(cpu) == nullptr);
    }
    // A cpu region leaves the cuda state alone.
    CHECK_FALSE(amp::is_autocast_enabled(cuda));
    CHECK(amp::get_autocast_dtype(cuda) == DType::f16);
    CHECK(amp::get_autocast_table_override(cuda) == nullptr);
}

TEST_CASE("an explicit dtype sets the region's dtype")
{
    const LinearInputs in;
    amp::autocast region("cpu", {.dtype = DType::f16});
    CHECK(region.enabled());
    CHECK(region.dtype() == DType::f16);
    CHECK(amp::get_autocast_dtype(cpu) == DType::f16);
    CHECK(linear(in.x, in.w).dtype() == DType::f16);
}

TEST_CASE("a nested region with no dtype inherits the outer region's dtype, not the default")
{
    const LinearInputs in;
    {
        amp::autocast outer("cpu", {.dtype = DType::f16});
        {
            amp::autocast inner("cpu");
            CHECK(inner.dtype() == DType::f16);
            CHECK(amp::get_autocast_dtype(cpu) == DType::f16);
            CHECK(linear(in.x, in.w).dtype() == DType::f16);
            {
                amp::autocast innermost("cpu", {.dtype = DType::bf16});
                CHECK(linear(in.x, in.w).dtype() == DType::bf16);
            }
            CHECK(amp::get_autocast_dtype(cpu) == DType::f16);
        }
        CHECK(amp::get_autocast_dtype(cpu) == DType::f16);
    }
    CHECK(amp::get_autocast_dtype(cpu) == DType::bf16);
}

TEST_CASE("an enabled=false sub-region turns autocast off inside and back on after")
{
    const LinearInputs in;
    amp::autocast outer("cpu");
    const Tensor low = linear(in.x, in.w);
    CHECK(low.dtype() == DType::bf16);
    {
        amp::autocast off("cpu", {.enabled = false});
        CHECK_FALSE(off.enabled());
        CHECK_FALSE(amp::is_autocast_enabled(cpu));
        CHECK(linear(in.x, in.w).dtype() == DType::f32);
        CHECK(linear(low, in.w.to(DType::bf16)).dtype() == DType::bf16);  // no casts: the inputs' dtype
        {
            amp::autocast on_again("cpu");
            CHECK(amp::is_autocast_enabled(cpu));
            CHECK(linear(in.x, in.w).dtype() == DType::bf16);
        }
        CHECK_FALSE(amp::is_autocast_enabled(cpu));
    }
    CHECK(amp::is_autocast_enabled(cpu));
    CHECK(linear(in.x, in.w).dtype() == DType::bf16);
}

TEST_CASE("nesting counts every region, disabled ones included")
{
    CHECK(amp::autocast_increment_nesting() == 1);
    CHECK(amp::autocast_decrement_nesting() == 0);
    {
        amp::autocast outer("cpu");
        CHECK(nesting_depth() == 1);
        {
            amp::autocast off("cpu", {.enabled = false});
            CHECK(nesting_depth() == 2);
            CHECK(amp::autocast_increment_nesting() == 3);
            CHECK(amp::autocast_decrement_nesting() == 2);
        }
        CHECK(nesting_depth() == 1);
    }
    CHECK(nesting_depth() == 0);
    const std::string message = error_message([] { amp::autocast_decrement_nesting(); }, ErrorKind::state);
    CHECK(message == "autocast nesting went below zero: an autocast region ended that never began");
    CHECK(nesting_depth() == 0);
}

TEST_CASE("the cast cache is cleared only when the outermost region exits")
{
    amp::clear_autocast_cache();
    REQUIRE(amp::autocast_cache_size() == 0);
    const LinearInputs in;

    SUBCASE("an enabled outer region with inner regions")
    {
        {
            amp::autocast outer("cpu");
            CHECK(linear(in.x, in.w).dtype() == DType::bf16);
            CHECK(amp::autocast_cache_size() == 1);  // w's bf16 cast (x does not require grad)
            {
                amp::autocast inner("cpu");
                CHECK(linear(in.x, in.w).dtype() == DType::bf16);
                CHECK(amp::autocast_cache_size() == 1);  // a hit, not a second entry
            }
            CHECK(amp::autocast_cache_size() == 1);
            {
                amp::autocast off("cpu", {.enabled = false});
            }
            CHECK(amp::autocast_cache_size() == 1);
        }
        CHECK(amp::autocast_cache_size() == 0);
    }
    SUBCASE("a disabled outer region counts: the enabled inner region's exit is not the outermost")
    {
        {
            amp::autocast off("cpu", {.enabled = false});
            {
                amp::autocast on("cpu");
                CHECK(linear(in.x, in.w).dtype() == DType::bf16);
                CHECK(amp::autocast_cache_size() == 1);
            }
            CHECK(amp::autocast_cache_size() == 1);
        }
        CHECK(amp::autocast_cache_size() == 0);
    }
    SUBCASE("cache_enabled=false stores nothing")
    {
        amp::autocast region("cpu", {.cache_enabled = false});
        CHECK_FALSE(amp::is_autocast_cache_enabled());
        CHECK(linear(in.x, in.w).dtype() == DType::bf16);
        CHECK(amp::autocast_cache_size() == 0);
    }
}

TEST_CASE("cache_enabled=false is visible inside the region, inherited by nested ones, restored after")
{
    CHECK(amp::is_autocast_cache_enabled());
    {
        amp::autocast region("cpu", {.cache_enabled = false});
        CHECK_FALSE(amp::is_autocast_cache_enabled());
        {
            amp::autocast inner("cpu");
            CHECK_FALSE(amp::is_autocast_cache_enabled());
        }
        {
            amp::autocast inner("cpu", {.cache_enabled = true});
            CHECK(amp::is_autocast_cache_enabled());
        }
        CHECK_FALSE(amp::is_autocast_cache_enabled());
    }
    CHECK(amp::is_autocast_cache_enabled());
}

TEST_CASE("a region given a table uses it, nested regions inherit it, and the built-in is back after")
{
    const LinearInputs in;
    const auto no_linear = table_named("no_linear", "linear");
    {
        amp::autocast region("cpu", {.table = no_linear});
        CHECK(&amp::get_autocast_table(cpu) == no_linear.get());
        CHECK(amp::get_autocast_table_override(cpu) == no_linear);
        CHECK(linear(in.x, in.w).dtype() == DType::f32);  // not listed: runs in the inputs' dtype
        CHECK(matmul(in.x, in.w).dtype() == DType::bf16);
        {
            amp::autocast inner("cpu");
            CHECK(&amp::get_autocast_table(cpu) == no_linear.get());
            CHECK(linear(in.x, in.w).dtype() == DType::f32);
        }
        CHECK(&amp::get_autocast_table(cuda) == &amp::PolicyTable::builtin(cuda));
    }
    CHECK(&amp::get_autocast_table(cpu) == &amp::PolicyTable::builtin(cpu));
    CHECK(amp::get_autocast_table_override(cpu) == nullptr);
    amp::autocast region("cpu");
    CHECK(linear(in.x, in.w).dtype() == DType::bf16);
}

TEST_CASE("autocast cpu with dtype f32 warns with PyTorch's text and disables the region")
{
    const LinearInputs in;
    CaptureWarnings warnings;
    {
        amp::autocast region("cpu", {.dtype = DType::f32});
        CHECK_FALSE(region.enabled());
        CHECK_FALSE(amp::is_autocast_enabled(cpu));
        CHECK(linear(in.x, in.w).dtype() == DType::f32);
    }
    REQUIRE(warnings.messages.size() == 1);
    CHECK(warnings.messages[0] == std::string(kCpuDtypeWarning));
    CHECK_FALSE(amp::is_autocast_enabled(cpu));
    CHECK(amp::get_autocast_dtype(cpu) == DType::bf16);
    CHECK(nesting_depth() == 0);

    amp::autocast f64_region("cpu", {.dtype = DType::f64});  // any dtype but bf16/f16
    CHECK_FALSE(f64_region.enabled());
    CHECK(warnings.messages.size() == 2);
}

TEST_CASE("test_autocast_disabled_with_fp32_dtype: enabled=false with dtype f32 is silent")
{
    CaptureWarnings warnings;
    {
        amp::autocast region("cpu", {.dtype = DType::f32, .enabled = false});
        CHECK_FALSE(region.enabled());
        CHECK_FALSE(amp::is_autocast_enabled(cpu));
    }
    CHECK(warnings.messages.empty());
    CHECK(amp::get_autocast_dtype(cpu) == DType::bf16);
}

TEST_CASE("autocast cuda without a usable GPU warns and disables the region")
{
    CaptureWarnings warnings;
    {
        amp::autocast region("cuda");
        CHECK(region.device_type() == cuda);
        CHECK(region.dtype() == DType::f16);
        if (cuda_device_count() == 0) {
            CHECK_FALSE(region.enabled());
            CHECK_FALSE(amp::is_autocast_enabled(cuda));
            REQUIRE(warnings.messages.size() == 1);
            CHECK(warnings.messages[0] == "User provided device_type of 'cuda', but CUDA is not available. Disabling");
        } else {
            MESSAGE("a CUDA device is present: the region is enabled and nothing is warned");
            CHECK(region.enabled());
            CHECK(amp::is_autocast_enabled(cuda));
            CHECK(warnings.messages.empty());
        }
        CHECK_FALSE(amp::is_autocast_enabled(cpu));
    }
    CHECK_FALSE(amp::is_autocast_enabled(cuda));
    const std::size_t after_first = warnings.messages.size();
    amp::autocast off("cuda", {.enabled = false});  // disabled on purpose: nothing to warn about
    CHECK(warnings.messages.size() == after_first);
}

TEST_CASE("an unsupported device_type is a device error and changes no state")
{
    for (const char* bad : {"gpu", "", "CPU", "cuda:0", "mps"}) {
        INFO("device_type '" << std::string(bad) << "'");
        const std::string message = error_message([&] { amp::autocast region(bad); }, ErrorKind::device);
        CHECK(message.find("unsupported autocast device_type") != std::string::npos);
        std::string quoted = "'";
        quoted.append(bad).append("'");
        CHECK(message.find(quoted) != std::string::npos);
        CHECK(nesting_depth() == 0);
        CHECK_FALSE(amp::is_autocast_enabled(cpu));
    }
    CHECK(amp::parse_autocast_device_type("cpu") == cpu);
    CHECK(amp::parse_autocast_device_type("cuda") == cuda);
}

TEST_CASE("autocast_function runs the function inside a fresh region on every call")
{
    const LinearInputs in;
    int calls = 0;
    std::vector<bool> seen_enabled;
    std::vector<int> seen_depth;
    auto decorated = amp::autocast_function("cpu", {}, [&](const Tensor& x, const Tensor& w) {
        ++calls;
        seen_enabled.push_back(amp::is_autocast_enabled(cpu));
        seen_depth.push_back(nesting_depth());
        return linear(x, w);
    });
    CHECK(calls == 0);  // making it runs nothing
    CHECK_FALSE(amp::is_autocast_enabled(cpu));

    CHECK(decorated(in.x, in.w).dtype() == DType::bf16);
    CHECK_FALSE(amp::is_autocast_enabled(cpu));
    CHECK(decorated(in.x, in.w).dtype() == DType::bf16);
    CHECK(calls == 2);
    CHECK(seen_enabled == std::vector<bool>{true, true});
    CHECK(seen_depth == std::vector<int>{1, 1});
    CHECK(nesting_depth() == 0);
    CHECK(amp::autocast_cache_size() == 0);  // each call was an outermost region

    // The options are kept with the function.
    auto in_f16 = amp::autocast_function("cpu", {.dtype = DType::f16}, [](const Tensor& x, const Tensor& w) { return linear(x, w); });
    CHECK(in_f16(in.x, in.w).dtype() == DType::f16);
    CHECK(amp::get_autocast_dtype(cpu) == DType::bf16);

    // Called inside a region, it nests: its exit is not the outermost.
    amp::autocast outer("cpu");
    CHECK(decorated(in.x, in.w).dtype() == DType::bf16);
    CHECK(seen_depth.back() == 2);
    CHECK(amp::is_autocast_enabled(cpu));
}

TEST_CASE("two threads at the same time each see only their own autocast state")
{
    const LinearInputs shared;  // read by both threads, never written
    constexpr int kRounds = 50;
    std::barrier<> sync(2);
    struct Seen {
        std::vector<DType> linear_dtype;
        std::vector<bool> enabled;
        std::vector<DType> autocast_dtype;
    };
    Seen a, b;

    // A: inside autocast("cpu") every round. B: outside in even rounds, inside an f16 region in odd ones.
    std::thread thread_a([&] {
        for (int round = 0; round < kRounds; ++round) {
            amp::autocast region("cpu");
            sync.arrive_and_wait();  // both threads have set up their state
            a.linear_dtype.push_back(linear(shared.x, shared.w).dtype());
            a.enabled.push_back(amp::is_autocast_enabled(cpu));
            a.autocast_dtype.push_back(amp::get_autocast_dtype(cpu));
            sync.arrive_and_wait();  // both are done before either leaves its region
        }
    });
    std::thread thread_b([&] {
        for (int round = 0; round < kRounds; ++round) {
            std::unique_ptr<amp::autocast> region;
            if (round % 2 == 1) region = std::make_unique<amp::autocast>("cpu", amp::AutocastOptions{.dtype = DType::f16});
            sync.arrive_and_wait();
            b.linear_dtype.push_back(linear(shared.x, shared.w).dtype());
            b.enabled.push_back(amp::is_autocast_enabled(cpu));
            b.autocast_dtype.push_back(amp::get_autocast_dtype(cpu));
            sync.arrive_and_wait();
        }
    });
    thread_a.join();
    thread_b.join();

    REQUIRE(a.linear_dtype.size() == kRounds);
    REQUIRE(b.linear_dtype.size() == kRounds);
    for (int round = 0; round < kRounds; ++round) {
        INFO("round " << round);
        CHECK(a.linear_dtype[round] == DType::bf16);
        CHECK(a.enabled[round]);
        CHECK(a.autocast_dtype[round] == DType::bf16);
        if (round % 2 == 0) {
            CHECK(b.linear_dtype[round] == DType::f32);
            CHECK_FALSE(b.enabled[round]);
            CHECK(b.autocast_dtype[round] == DType::bf16);
        } else {
            CHECK(b.linear_dtype[round] == DType::f16);
            CHECK(b.enabled[round]);
            CHECK(b.autocast_dtype[round] == DType::f16);
        }
    }
    CHECK_FALSE(amp::is_autocast_enabled(cpu));  // this thread was never in a region
}

TEST_CASE("the decorator resolves its options once, when it decorates, as PyTorch's does")
{
    // Made outside any region: the dtype is the CPU default, bf16, for every later call.
    auto run = amp::autocast_function("cpu", {}, [] { return amp::get_autocast_dtype(DeviceType::cpu); });
    amp::autocast outer("cpu", {.dtype = DType::f16});
    CHECK(run() == DType::bf16);
    CHECK(amp::get_autocast_dtype(DeviceType::cpu) == DType::f16);  // restored after the call
    // An unsupported dtype warns once, at decoration, and every call runs with autocast off.
    int warnings = 0;
    const WarningHandler previous = set_warning_handler([&](const std::string&) { ++warnings; });
    auto f32_run = amp::autocast_function("cpu", {.dtype = DType::f32}, [] { return amp::is_autocast_enabled(DeviceType::cpu); });
    CHECK_FALSE(f32_run());
    CHECK_FALSE(f32_run());
    set_warning_handler(previous);
    CHECK(warnings == 1);
}
