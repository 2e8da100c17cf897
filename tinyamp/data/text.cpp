#include "tinyamp/data/text.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "tinyamp/tensor/factories.h"

namespace tinyamp::data {
namespace {

// A contiguous copy of `length` tokens of `tokens` (1-D i64 on the CPU) from `start`.
Tensor copy_range(const std::int64_t* tokens, std::int64_t start, std::int64_t length)
{
    Tensor part = empty(Shape{length}, i64);
    std::memcpy(part.data_ptr<std::int64_t>(), tokens + start, std::size_t(length) * sizeof(std::int64_t));
    return part;
}

// The checks split_tokens and sample_batch share: a 1-D i64 tensor of token ids.
void check_tokens(const Tensor& tokens, const char* caller)
{
    TINYAMP_CHECK(tokens.defined() && tokens.dim() == 1, shape, caller, ": expected a 1-D tensor of token ids",
                  tokens.defined() ? ", got one of shape " + shape_str(tokens.shape()) : std::string(", got an undefined tensor"));
    TINYAMP_CHECK(tokens.dtype() == i64, dtype, caller, ": token ids are i64, got ", dtype_name(tokens.dtype()),
                  " (CharTokenizer::encode gives i64)");
}

}  // namespace

std::string load_text(const std::string& path)
{
    // zlib reads a gzip file and a plain file alike (gzread passes a file without the gzip magic through).
    errno = 0;
    const std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), &gzclose);
    TINYAMP_CHECK(file != nullptr, io, "cannot open text file '", path, "': ", std::strerror(errno),
                  " (check the path; data::data_path(\"kjv_1mb.txt.gz\") names the shipped text in tinyamp's data/ folder, and ",
                  "the environment variable TINYAMP_DATA_DIR chooses that folder)");
    std::string text;
    char buffer[1 << 16];
    int read = 0;
    while ((read = gzread(file.get(), buffer, sizeof buffer)) > 0) text.append(buffer, std::size_t(read));
    int status = Z_OK;
    const char* message = gzerror(file.get(), &status);
    TINYAMP_CHECK(read == 0 && (status == Z_OK || status == Z_STREAM_END), io, "cannot read text file '", path, "' after ",
                  text.size(), " bytes: ", message, " (the file is damaged or truncated; copy it again)");
    return text;
}

std::pair<Tensor, Tensor> split_tokens(const Tensor& tokens, double train_fraction)
{
    check_tokens(tokens, "split_tokens");
    TINYAMP_CHECK(train_fraction > 0.0 && train_fraction < 1.0, value,
                  "split_tokens: train_fraction must be between 0 and 1 (exclusive), got ", train_fraction);
    const std::int64_t n = tokens.numel();
    const auto train_count = std::int64_t(double(n) * train_fraction);  // nanoGPT's int(n * 0.9)
    TINYAMP_CHECK(train_count > 0 && train_count < n, value, "split_tokens: a train_fraction of ", train_fraction, " of ", n,
                  " tokens leaves ", train_count, " for training and ", n - train_count,
                  " for validation; each part needs at least one (use a longer text)");
    const Tensor all = tokens.cpu().contiguous();
    const std::int64_t* ids = all.data_ptr<std::int64_t>();
    return {copy_range(ids, 0, train_count), copy_range(ids, train_count, n - train_count)};
}

TextDataset load_text_dataset(const std::string& path, double train_fraction)
{
    const std::string text = load_text(path);
    TINYAMP_CHECK(!text.empty(), io, "text file '", path, "' is empty; a language model needs a text to learn");
    CharTokenizer tokenizer(text);
    auto [train, val] = split_tokens(tokenizer.encode(text), train_fraction);
    return TextDataset{std::move(tokenizer), train, val};
}

std::pair<Tensor, Tensor> sample_batch(const Tensor& tokens, std::int64_t batch_size, std::int64_t block_size, Generator& generator)
{
    check_tokens(tokens, "sample_batch");
    TINYAMP_CHECK(batch_size > 0, value, "sample_batch: batch_size must be positive, got ", batch_size);
    TINYAMP_CHECK(block_size > 0, value, "sample_batch: block_size must be positive, got ", block_size);
    const std::int64_t n = tokens.numel();
    TINYAMP_CHECK(block_size < n, value, "sample_batch: block_size ", block_size, " needs at least ", block_size + 1,
                  " tokens (a window and the token after it), but the text has ", n,
                  "; use a block_size below ", n, " or a longer text");

    // Draw every start first, as torch.randint(n - block_size, (batch_size,)) does, then copy.
    const auto starts_count = std::uint64_t(n - block_size);
    std::vector<std::int64_t> starts(static_cast<std::size_t>(batch_size));
    for (std::int64_t& start : starts) start = std::int64_t(generator.next_u64() % starts_count);  // bias < n / 2^64

    const Tensor all = tokens.cpu().contiguous();
    const std::int64_t* ids = all.data_ptr<std::int64_t>();
    Tensor x = empty(Shape{batch_size, block_size}, i64), y = empty(Shape{batch_size, block_size}, i64);
    const std::size_t row_bytes = std::size_t(block_size) * sizeof(std::int64_t);
    for (std::size_t b = 0; b < starts.size(); ++b) {
        std::memcpy(x.data_ptr<std::int64_t>() + b * std::size_t(block_size), ids + starts[b], row_bytes);
        std::memcpy(y.data_ptr<std::int64_t>() + b * std::size_t(block_size), ids + starts[b] + 1, row_bytes);
    }
    return {x.to(tokens.device()), y.to(tokens.device())};
}

}  // namespace tinyamp::data
