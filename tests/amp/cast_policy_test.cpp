// Policy tables (reference §1.2, §1.5): the built-in CUDA and CPU tables op by op, editing a
// table, the text format and its files, and the errors a bad file gives.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include <tinyamp/amp/cast_policy.h>
#include <tinyamp/support/op_names.h>
#include <tinyamp/tinyamp.h>
#include <tinyamp/support/error.h>

#include "tests/support/expect_error.h"
#include "tests/support/temp_dir.h"

using namespace tinyamp;
using tinyamp::amp::CastPolicy;
using tinyamp::amp::PolicyTable;
using tinyamp::test::error_message;

using tinyamp::test::TempDir;

namespace {

using Entries = std::map<std::string, CastPolicy>;

// A fresh folder under the system's temporary folder, removed with everything in it at the end.
std::string read_text(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_text(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

// A small table used by several tests.
PolicyTable small_table()
{
    PolicyTable table;
    table.set_name("tiny");
    table.set("mm", CastPolicy::lower_precision_fp);
    table.set("exp", CastPolicy::fp32);
    table.set("linear", CastPolicy::lower_precision_fp);
    table.set("cat", CastPolicy::promote);
    return table;
}

}  // namespace

TEST_CASE("the built-in CUDA table: PyTorch's CUDA lists restricted to tinyamp's ops")
{
    using enum CastPolicy;
    const Entries expected = {
        {"conv2d", lower_precision_fp},
        {"addmm", lower_precision_fp},
        {"matmul", lower_precision_fp},
        {"mm", lower_precision_fp},
        {"linear", lower_precision_fp},
        {"bmm", lower_precision_fp},
        {"scaled_dot_product_attention", lower_precision_fp},
        {"exp", fp32},
        {"log", fp32},
        {"pow", fp32},
        {"layer_norm", fp32},
        {"nll_loss", fp32},
        {"mse_loss", fp32},
        {"binary_cross_entropy_with_logits", fp32},
        {"cross_entropy", fp32},
        {"softmax", fp32_set_opt_dtype},
        {"log_softmax", fp32_set_opt_dtype},
        {"sum", fp32_set_opt_dtype},
        {"binary_cross_entropy", banned},
    };
    const PolicyTable table = PolicyTable::cuda();
    CHECK(table.name() == "cuda");
    CHECK(table.entries().size() == 19);
    for (const auto& [op, policy] : expected) {
        INFO("op " << op << " should be " << std::string(amp::policy_name(policy)));
        REQUIRE(table.lookup(op).has_value());
        CHECK(*table.lookup(op) == policy);
    }
    CHECK(table.entries() == expected);  // nothing more than the rows above
    CHECK_FALSE(table.lookup("add").has_value());
    CHECK_FALSE(table.lookup("batch_norm").has_value());  // not in PyTorch's CUDA lists either
    CHECK_FALSE(table.lookup("cat").has_value());         // promote on the CPU only (here)
    CHECK(PolicyTable::builtin(DeviceType::cuda) == table);
}

TEST_CASE("the built-in CPU table: binary_cross_entropy is fp32, softmax and sum are not listed")
{
    using enum CastPolicy;
    const Entries expected = {
        {"conv2d", lower_precision_fp},
        {"bmm", lower_precision_fp},
        {"mm", lower_precision_fp},
        {"addmm", lower_precision_fp},
        {"linear", lower_precision_fp},
        {"matmul", lower_precision_fp},
        {"scaled_dot_product_attention", lower_precision_fp},
        {"binary_cross_entropy", fp32},
        {"mse_loss", fp32},
        {"nll_loss", fp32},
        {"cross_entropy", fp32},
        {"binary_cross_entropy_with_logits", fp32},
        {"stack", promote},
        {"cat", promote},
    };
    const PolicyTable table = PolicyTable::cpu();
    CHECK(table.name() == "cpu");
    CHECK(table.entries().size() == 14);
    for (const auto& [op, policy] : expected) {
        INFO("op " << op << " should be " << std::string(amp::policy_name(policy)));
        REQUIRE(table.lookup(op).has_value());
        CHECK(*table.lookup(op) == policy);
    }
    CHECK(table.entries() == expected);
    // Not intercepted on the CPU (PyTorch's CPU list has no fp32_set_opt_dtype and no banned op).
    CHECK_FALSE(table.lookup("softmax").has_value());
    CHECK_FALSE(table.lookup("log_softmax").has_value());
    CHECK_FALSE(table.lookup("sum").has_value());
    CHECK_FALSE(table.lookup("exp").has_value());
    CHECK_FALSE(table.lookup("layer_norm").has_value());
    CHECK(PolicyTable::builtin(DeviceType::cpu) == table);
    CHECK_FALSE(PolicyTable::cpu() == PolicyTable::cuda());
}

TEST_CASE("set puts an op under a policy, moving it from its old one, and remove takes it out")
{
    PolicyTable table = PolicyTable::cpu();
    CHECK(*table.lookup("matmul") == CastPolicy::lower_precision_fp);

    table.set("matmul", CastPolicy::fp32);  // moved: one row, the new policy
    CHECK(*table.lookup("matmul") == CastPolicy::fp32);
    CHECK(table.entries().size() == 14);

    table.set("softmax", CastPolicy::fp32_set_opt_dtype);  // a new row
    CHECK(*table.lookup("softmax") == CastPolicy::fp32_set_opt_dtype);
    CHECK(table.entries().size() == 15);

    table.remove("matmul");
    CHECK_FALSE(table.lookup("matmul").has_value());
    CHECK(table.entries().size() == 14);
    table.remove("not_an_op");  // removing what is not there changes nothing
    CHECK(table.entries().size() == 14);

    // The built-in tables are not changed by edits to a copy.
    CHECK(*PolicyTable::builtin(DeviceType::cpu).lookup("matmul") == CastPolicy::lower_precision_fp);
    CHECK_FALSE(PolicyTable::builtin(DeviceType::cpu).lookup("softmax").has_value());

    // Names that the text format could not hold are refused.
    for (const char* bad : {"", "two words", "op#1", "tab\tbed"}) {
        INFO("op name '" << std::string(bad) << "'");
        const std::string message = error_message([&] { table.set(bad, CastPolicy::fp32); }, ErrorKind::value);
        CHECK(message.find("cannot go in a policy table") != std::string::npos);
    }
    CHECK(table.entries().size() == 14);
}

TEST_CASE("set_name refuses a name the text format could not read back, and keeps the old name")
{
    PolicyTable table = PolicyTable::cpu();
    table.set_name("my-lab-table");
    CHECK(PolicyTable::from_text(table.to_text()).name() == "my-lab-table");
    for (const char* bad : {"", "two words", "v#2", "tab\tbed"}) {
        INFO("table name '" << std::string(bad) << "'");
        const std::string message = error_message([&] { table.set_name(bad); }, ErrorKind::value);
        CHECK(message.find("cannot be written as text") != std::string::npos);
        CHECK(table.name() == "my-lab-table");
    }
}

TEST_CASE("to_text of a small table: header, name, then ops grouped by policy")
{
    const std::string expected =
        "# tinyamp autocast policy table: one op per line, \"<op> <policy>\"\n"
        "# policies: lower_precision_fp fp32 fp32_set_opt_dtype promote banned; ops not listed run in their input dtypes\n"
        "table tiny\n"
        "linear lower_precision_fp\n"
        "mm lower_precision_fp\n"
        "exp fp32\n"
        "cat promote\n";
    CHECK(small_table().to_text() == expected);
    std::ostringstream streamed;
    streamed << small_table();
    CHECK(streamed.str() == expected);
}

TEST_CASE("from_text of to_text gives back an equal table")
{
    for (const PolicyTable& table : {PolicyTable::cuda(), PolicyTable::cpu(), small_table(), PolicyTable()}) {
        INFO("table " << table.name());
        const PolicyTable back = PolicyTable::from_text(table.to_text());
        CHECK(back == table);
        CHECK(back.name() == table.name());
        CHECK(back.entries() == table.entries());
    }
}

TEST_CASE("from_text skips comments and blank lines and reads the table name")
{
    const PolicyTable table = PolicyTable::from_text(
        "# my table\n"
        "\n"
        "table experiment\n"
        "   matmul   fp32   # trailing comment\n"
        "sum fp32_set_opt_dtype\n"
        "binary_cross_entropy banned\n");
    CHECK(table.name() == "experiment");
    const Entries expected = {
        {"matmul", CastPolicy::fp32},
        {"sum", CastPolicy::fp32_set_opt_dtype},
        {"binary_cross_entropy", CastPolicy::banned},
    };
    CHECK(table.entries() == expected);
    CHECK(PolicyTable::from_text("mm lower_precision_fp\n").name() == "custom");  // no "table" line
    CHECK(PolicyTable::from_text("").entries().empty());
}

TEST_CASE("save then load gives back an equal table, and the file holds exactly to_text")
{
    const TempDir dir;
    const std::string path = dir.file("tiny.policy");
    small_table().save(path);
    CHECK(read_text(path) ==
          "# tinyamp autocast policy table: one op per line, \"<op> <policy>\"\n"
          "# policies: lower_precision_fp fp32 fp32_set_opt_dtype promote banned; ops not listed run in their input dtypes\n"
          "table tiny\n"
          "linear lower_precision_fp\n"
          "mm lower_precision_fp\n"
          "exp fp32\n"
          "cat promote\n");
    CHECK_FALSE(std::filesystem::exists(path + ".tmp"));  // the temporary file was renamed
    CHECK(PolicyTable::load(path) == small_table());

    // Saving again replaces the file.
    PolicyTable cuda = PolicyTable::cuda();
    cuda.save(path);
    CHECK(PolicyTable::load(path) == PolicyTable::cuda());
    CHECK(read_text(path) == PolicyTable::cuda().to_text());

    // A save into a folder that does not exist fails and says so.
    const std::string nowhere = dir.file("no_such_folder/tiny.policy");
    const std::string message = error_message([&] { small_table().save(nowhere); }, ErrorKind::io);
    CHECK(message.find("cannot write policy table") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(nowhere));
}

TEST_CASE("load of a missing file is an io error naming the file")
{
    const TempDir dir;
    const std::string path = dir.file("missing.policy");
    const std::string message = error_message([&] { PolicyTable::load(path); }, ErrorKind::io);
    std::string expected = "cannot open policy table '";
    expected.append(path).append("': no such file");
    CHECK(message == expected);
}

TEST_CASE("a bad policy table line is an io error naming its line number")
{
    SUBCASE("unknown policy: the message lists the accepted names")
    {
        const std::string message = error_message(
            [] { PolicyTable::from_text("table t\n# comment\nmm fp16\n"); }, ErrorKind::io);
        CHECK(message ==
              "policy table line 3: unknown cast policy 'fp16'; use one of lower_precision_fp, fp32, fp32_set_opt_dtype, promote, banned");
    }
    SUBCASE("duplicate op, even under the same policy")
    {
        const std::string message = error_message(
            [] { PolicyTable::from_text("mm lower_precision_fp\nexp fp32\n\nmm lower_precision_fp\n"); }, ErrorKind::io);
        CHECK(message == "policy table line 4: op 'mm' is listed twice; keep one line per op");
    }
    SUBCASE("malformed line: one word")
    {
        const std::string message =
            error_message([] { PolicyTable::from_text("table t\nmm\n"); }, ErrorKind::io);
        CHECK(message == "policy table line 2: expected \"<op> <policy>\" (or \"table <name>\"), got 'mm'");
    }
    SUBCASE("malformed line: three words")
    {
        const std::string message =
            error_message([] { PolicyTable::from_text("mm fp32 extra\n"); }, ErrorKind::io);
        CHECK(message == "policy table line 1: expected \"<op> <policy>\" (or \"table <name>\"), got 'mm fp32 extra'");
    }
    SUBCASE("the same errors through load")
    {
        const TempDir dir;
        const std::string path = dir.file("bad.policy");
        write_text(path, "table t\nlinear lower_precision_fp\nlinear half\n");
        const std::string message = error_message([&] { PolicyTable::load(path); }, ErrorKind::io);
        CHECK(message.find("policy table line 3: ") == 0);
        CHECK(message.find("unknown cast policy 'half'") != std::string::npos);
    }
}

TEST_CASE("policy_name and parse_policy for all five policies")
{
    const std::pair<CastPolicy, const char*> names[] = {
        {CastPolicy::lower_precision_fp, "lower_precision_fp"},
        {CastPolicy::fp32, "fp32"},
        {CastPolicy::fp32_set_opt_dtype, "fp32_set_opt_dtype"},
        {CastPolicy::promote, "promote"},
        {CastPolicy::banned, "banned"},
    };
    for (const auto& [policy, name] : names) {
        INFO("policy " << std::string(name));
        CHECK(std::string(amp::policy_name(policy)) == name);
        CHECK(amp::parse_policy(name) == policy);
    }
    for (const char* bad : {"", "FP32", "lower", "fp32_append_dtype"}) {
        INFO("name '" << std::string(bad) << "'");
        const std::string message = error_message([&] { amp::parse_policy(bad); }, ErrorKind::value);
        std::string expected = "unknown cast policy '";
        expected.append(bad).append("'; use one of lower_precision_fp, fp32, fp32_set_opt_dtype, promote, banned");
        CHECK(message == expected);
    }
}

TEST_CASE("names the text format cannot hold are refused, and a folder is not a policy file")
{
    PolicyTable table;
    CHECK_THROWS_AS(table.set("table", CastPolicy::fp32), Error);  // would read back as the table's name
    CHECK_THROWS_AS(table.set("mat\rmul", CastPolicy::fp32), Error);
    CHECK_THROWS_AS(table.set("a b", CastPolicy::fp32), Error);
    const std::string message = error_message([] { PolicyTable::load("/tmp"); }, ErrorKind::io);
    CHECK(message == "cannot open policy table '/tmp': it is not a regular file");
}

namespace {
// A user's op, as lesson 10's: its name is known to policy tables once the program uses it.
struct ScaledSquare : Function<ScaledSquare> {
    static constexpr const char* name = "scaled_square";
    static Tensor forward(Context&, const Tensor& x) { return mul(x, x); }
    static std::vector<Tensor> backward(Context&, const Tensor& grad) { return {grad}; }
};
}  // namespace

TEST_CASE("a row naming no op is refused with the op it probably meant, when set and when loaded")
{
    PolicyTable table;
    const std::string message = error_message([&] { table.set("lineer", CastPolicy::fp32); }, ErrorKind::value);
    CHECK(message == "'lineer' is not an op tinyamp has (did you mean 'linear'?); a row names a built-in op (kBuiltinOps) or a user Function "
                     "the program uses");
    CHECK(table.entries().empty());  // nothing half-set
    CHECK(error_message([] { PolicyTable::from_text("table mine\nmatmul lower_precision_fp\nsoftmx fp32_set_opt_dtype\n"); }, ErrorKind::io)
              .starts_with("policy table line 3: 'softmx' is not an op tinyamp has (did you mean 'softmax'?)"));
    // Every row of the built-in tables names a real op, and every name of the list is accepted.
    for (const PolicyTable& builtin : {PolicyTable::cuda(), PolicyTable::cpu()})
        for (const auto& [op, policy] : builtin.entries()) CHECK_MESSAGE(is_known_op(op), op);
    for (std::string_view op : kBuiltinOps) CHECK_NOTHROW(table.set(std::string(op), CastPolicy::fp32));
    CHECK(std::is_sorted(std::begin(kBuiltinOps), std::end(kBuiltinOps)));
}

TEST_CASE("a user Function's name can be a row: registered when the program starts")
{
    CHECK(is_known_op("scaled_square"));  // before its first call: registered at start-up
    CHECK(ScaledSquare::apply(full({1}, 3.0)).item() == 9.0);  // the program uses the op
    PolicyTable table;
    CHECK_NOTHROW(table.set("scaled_square", CastPolicy::fp32));
    CHECK(nearest_op("scaled_sqare") == "scaled_square");
    CHECK_FALSE(is_known_op("scaled_cube"));
}
