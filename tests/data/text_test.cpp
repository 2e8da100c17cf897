// Text for a character-level model: the shipped KJV prefix (size, lines, the fixed 90/10 split),
// load_text's errors for missing and damaged files, split_tokens, and sample_batch's windows,
// seeding and errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"
#include "tests/support/temp_dir.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {

std::string kjv_path() { return data::data_path("kjv_1mb.txt.gz"); }

std::string read_bytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// Row b of a 2-D i64 tensor.
std::vector<double> row(const Tensor& t, std::int64_t b) { return t.select(0, b).to_vector(); }

}  // namespace

TEST_CASE("load_text: data/kjv_1mb.txt.gz is 999,808 bytes in 7042 lines, Genesis 1:1 to Judges 19:17")
{
    const std::string text = data::load_text(kjv_path());
    CHECK(text.size() == 999808);
    CHECK(std::count(text.begin(), text.end(), '\n') == 7042);
    CHECK(text.starts_with("In the beginning God created the heaven and the earth.\n"));
    CHECK(text.ends_with("and the old man said, Whither goest thou? and whence comest thou?\n"));
}

TEST_CASE("load_text reads a plain file too, byte for byte")
{
    const test::TempDir dir;
    const std::string bytes = std::string("line one\r\nline two\0three\n", 25);
    write_bytes(dir.file("plain.txt"), bytes);
    CHECK(data::load_text(dir.file("plain.txt")) == bytes);
    write_bytes(dir.file("empty.txt"), "");
    CHECK(data::load_text(dir.file("empty.txt")).empty());
}

TEST_CASE("load_text: a missing, truncated or damaged file is an io error naming the path and the fix")
{
    const test::TempDir dir;
    const std::string missing = error_message([&] { data::load_text(dir.file("nowhere.txt.gz")); }, ErrorKind::io);
    CHECK(missing.find("cannot open text file '" + dir.file("nowhere.txt.gz") + "': No such file or directory") != std::string::npos);
    CHECK(missing.find("data::data_path(\"kjv_1mb.txt.gz\")") != std::string::npos);
    CHECK(missing.find("TINYAMP_DATA_DIR") != std::string::npos);

    const std::string gz = read_bytes(kjv_path());
    write_bytes(dir.file("truncated.txt.gz"), gz.substr(0, gz.size() / 2));
    const std::string truncated = error_message([&] { data::load_text(dir.file("truncated.txt.gz")); }, ErrorKind::io);
    CHECK(truncated.find("cannot read text file '" + dir.file("truncated.txt.gz") + "'") != std::string::npos);
    CHECK(truncated.find("damaged or truncated; copy it again") != std::string::npos);

    // The gzip magic and header, then bytes that are no deflate stream.
    write_bytes(dir.file("damaged.txt.gz"), std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03", 10) + std::string(64, '\xff'));
    const std::string damaged = error_message([&] { data::load_text(dir.file("damaged.txt.gz")); }, ErrorKind::io);
    CHECK(damaged.find("cannot read text file '" + dir.file("damaged.txt.gz") + "' after 0 bytes") != std::string::npos);

    write_bytes(dir.file("empty.txt"), "");
    CHECK(error_message([&] { data::load_text_dataset(dir.file("empty.txt")); }, ErrorKind::io).find("is empty") != std::string::npos);
}

TEST_CASE("load_text_dataset: the shipped text's fixed split, 899,827 training and 99,981 validation tokens")
{
    const data::TextDataset kjv = data::load_text_dataset(kjv_path());
    MESSAGE("kjv_1mb: vocab_size ", kjv.tokenizer.vocab_size(), ", train ", kjv.train.numel(), " tokens, val ", kjv.val.numel());
    CHECK(kjv.tokenizer.vocab_size() == 62);
    CHECK(kjv.train.shape() == Shape{899827});  // int(999808 * 0.9)
    CHECK(kjv.val.shape() == Shape{99981});
    CHECK(kjv.train.dtype() == i64);
    CHECK(kjv.val.dtype() == i64);
    const std::string train = kjv.tokenizer.decode(kjv.train), val = kjv.tokenizer.decode(kjv.val);
    CHECK(train + val == data::load_text(kjv_path()));
    CHECK(train.starts_with("In the beginning"));
    CHECK(val.starts_with("l their enemies into their hand.\nThere failed not ought"));  // Joshua 21:44, mid-verse
}

TEST_CASE("split_tokens: the first floor(n * fraction) tokens, then the rest, as copies")
{
    const Tensor tokens = arange(10);
    const auto [train, val] = data::split_tokens(tokens, 0.75);
    CHECK(train.to_vector() == std::vector<double>{0, 1, 2, 3, 4, 5, 6});
    CHECK(val.to_vector() == std::vector<double>{7, 8, 9});
    CHECK_FALSE(train.shares_storage_with(tokens));
    CHECK(data::split_tokens(tokens).first.numel() == 9);

    CHECK(error_message([&] { data::split_tokens(tokens, 1.0); }, ErrorKind::value).find("between 0 and 1") != std::string::npos);
    CHECK(error_message([&] { data::split_tokens(arange(3), 0.2); }, ErrorKind::value)
              .find("leaves 0 for training and 3 for validation") != std::string::npos);
    CHECK(error_message([&] { data::split_tokens(arange(4).reshape({2, 2})); }, ErrorKind::shape).find("got one of shape [2, 2]") !=
          std::string::npos);
    CHECK(error_message([&] { data::split_tokens(tensor({1, 2, 3})); }, ErrorKind::dtype).find("token ids are i64, got f32") !=
          std::string::npos);
}

TEST_CASE("sample_batch: x holds windows of the text, y the same windows one token later")
{
    // Token i is i, so a window shows where it starts.
    const Tensor tokens = arange(1000);
    Generator generator(0);
    const auto [x, y] = data::sample_batch(tokens, /*batch_size=*/4, /*block_size=*/8, generator);
    CHECK(x.shape() == Shape{4, 8});
    CHECK(y.shape() == Shape{4, 8});
    CHECK(x.dtype() == i64);
    CHECK(y.dtype() == i64);
    // The starts are mt19937_64(0)'s first four outputs modulo 1000 - 8: fixed by the C++ standard,
    // so every platform draws these.
    CHECK(x.select(1, 0).to_vector() == std::vector<double>{446, 11, 889, 46});
    for (std::int64_t b = 0; b < 4; ++b) {
        const std::vector<double> xb = row(x, b), yb = row(y, b);
        for (std::size_t t = 0; t < 8; ++t) {
            CHECK(xb[t] == xb[0] + double(t));
            CHECK(yb[t] == xb[t] + 1);
        }
    }
}

TEST_CASE("sample_batch on the shipped text: y decodes to x's text one character on")
{
    const data::TextDataset kjv = data::load_text_dataset(kjv_path());
    Generator generator(1337);
    const auto [x, y] = data::sample_batch(kjv.train, 2, 64, generator);
    for (std::int64_t b = 0; b < 2; ++b) {
        const std::string xs = kjv.tokenizer.decode(x.select(0, b)), ys = kjv.tokenizer.decode(y.select(0, b));
        CHECK(xs.substr(1) == ys.substr(0, 63));
        CHECK(kjv.tokenizer.decode(kjv.train).find(xs + ys.back()) != std::string::npos);
    }
    MESSAGE("seed 1337, train, first window: \"", kjv.tokenizer.decode(x.select(0, 0)), "\"");
}

TEST_CASE("sample_batch: the same seed gives the same batches, another seed others")
{
    const data::TextDataset kjv = data::load_text_dataset(kjv_path());
    Generator first(1337), again(1337), other(1338);
    for (int draw = 0; draw < 3; ++draw) {
        const auto [x1, y1] = data::sample_batch(kjv.train, 8, 32, first);
        const auto [x2, y2] = data::sample_batch(kjv.train, 8, 32, again);
        const auto [x3, y3] = data::sample_batch(kjv.train, 8, 32, other);
        CHECK(x1.to_vector() == x2.to_vector());
        CHECK(y1.to_vector() == y2.to_vector());
        CHECK(x1.to_vector() != x3.to_vector());
    }
    Generator fresh(1337);
    const Tensor batch1 = data::sample_batch(kjv.train, 8, 32, fresh).first;
    const Tensor batch2 = data::sample_batch(kjv.train, 8, 32, fresh).first;
    CHECK(batch1.to_vector() != batch2.to_vector());  // the generator moves on
}

TEST_CASE("sample_batch errors name the problem and the fix")
{
    Generator generator(0);
    const Tensor tokens = arange(10);
    const std::string too_long = error_message([&] { data::sample_batch(tokens, 2, 10, generator); }, ErrorKind::value);
    CHECK(too_long.find("block_size 10 needs at least 11 tokens (a window and the token after it), but the text has 10") !=
          std::string::npos);
    CHECK(too_long.find("use a block_size below 10 or a longer text") != std::string::npos);
    CHECK(data::sample_batch(tokens, 2, 9, generator).first.to_vector() == std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8,
                                                                                               0, 1, 2, 3, 4, 5, 6, 7, 8});
    CHECK(error_message([&] { data::sample_batch(tokens, 0, 4, generator); }, ErrorKind::value).find("batch_size must be positive, got 0") !=
          std::string::npos);
    CHECK(error_message([&] { data::sample_batch(tokens, 2, 0, generator); }, ErrorKind::value).find("block_size must be positive, got 0") !=
          std::string::npos);
    CHECK(error_message([&] { data::sample_batch(tokens.reshape({2, 5}), 2, 2, generator); }, ErrorKind::shape)
              .find("sample_batch: expected a 1-D tensor of token ids, got one of shape [2, 5]") != std::string::npos);
    CHECK(error_message([&] { data::sample_batch(tokens.to(f32), 2, 2, generator); }, ErrorKind::dtype)
              .find("sample_batch: token ids are i64, got f32") != std::string::npos);
}
