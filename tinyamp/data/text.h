#pragma once
/// \file
/// Text for a character-level language model: load a text, split its tokens into training and
/// validation text, and draw batches of windows from them (nanoGPT's get_batch).
///
/// \code
///     data::TextDataset kjv = data::load_text_dataset(data::data_path("kjv_1mb.txt.gz"));
///     Generator generator(1337);
///     auto [x, y] = data::sample_batch(kjv.train, /*batch_size=*/32, /*block_size=*/128, generator);
///     // x, y: i64 [32, 128]; y[b][t] is the token after x[b][t] in the text
/// \endcode
///
/// The split is fixed, not shuffled: the first 90 % of the tokens train, the last 10 % validate,
/// as nanoGPT's shakespeare_char. For data/kjv_1mb.txt.gz that is 899,827 and 99,981 tokens
/// (data/README.md).

#include <cstdint>
#include <string>
#include <utility>

#include "tinyamp/support/generator.h"
#include "tinyamp/tensor/tensor.h"
#include "tinyamp/data/char_tokenizer.h"

namespace tinyamp::data {

/// The whole content of a text file, byte for byte: gzip (as data/kjv_1mb.txt.gz) or plain, told
/// apart by zlib. Error(io) naming the path and what to do for a file that is missing, unreadable,
/// damaged or truncated.
std::string load_text(const std::string& path);

/// `tokens` [n] split without shuffling: the first floor(n * train_fraction) tokens (first) and
/// the rest (second), as contiguous copies on the CPU (nanoGPT's `int(n * 0.9)`). Error(shape)
/// unless `tokens` is 1-D, Error(dtype) unless i64, Error(value) unless 0 < train_fraction < 1
/// and both parts get at least one token.
std::pair<Tensor, Tensor> split_tokens(const Tensor& tokens, double train_fraction = 0.9);

/// A text made ready for a character-level model: its tokenizer and its tokens, split.
struct TextDataset {
    CharTokenizer tokenizer;  ///< built from the whole text (training and validation)
    Tensor train;             ///< i64 [n_train]: the first part of the text's tokens
    Tensor val;               ///< i64 [n_val]: the rest, the validation text
};

/// load_text(path), a CharTokenizer of the whole text, and split_tokens(tokens, train_fraction).
/// The errors of those three.
TextDataset load_text_dataset(const std::string& path, double train_fraction = 0.9);

/// `batch_size` windows of `block_size` tokens at random places of `tokens` (1-D i64), and the
/// windows one token later (nanoGPT's get_batch): x[b] = tokens[i_b : i_b + T], y[b] = tokens[i_b
/// + 1 : i_b + T + 1], each start i_b drawn uniformly from [0, n - block_size) with
/// `generator.next_u64() % (n - block_size)` (no standard-library distribution, so a seed gives
/// the same batches on every platform). Returns (x, y), i64 [batch_size, block_size] on the
/// tokens' device (keep the tokens on the CPU: they are read there). Error(shape) for tokens that
/// are not 1-D, Error(dtype) unless i64, Error(value) for a batch_size or block_size below 1 or a
/// block_size >= n (a window and its next token must fit).
std::pair<Tensor, Tensor> sample_batch(const Tensor& tokens, std::int64_t batch_size, std::int64_t block_size,
                                       Generator& generator);

}  // namespace tinyamp::data
