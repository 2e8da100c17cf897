#pragma once
/// \file
/// CharTokenizer: a character-level tokenizer, as nanoGPT's shakespeare_char prepares its text.
///
/// \code
///     const std::string text = data::load_text(data::data_path("kjv_1mb.txt.gz"));
///     data::CharTokenizer tokenizer(text);           // 62 tokens for the shipped text
///     Tensor ids = tokenizer.encode("In the beginning");   // i64 [16]
///     std::string back = tokenizer.decode(ids);      // "In the beginning"
/// \endcode
///
/// A character is a byte: UTF-8 text with non-ASCII letters gets one token per byte of them,
/// which still round-trips.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "tinyamp/tensor/tensor.h"

namespace tinyamp::data {

/// Maps each distinct byte of a text to a token id: the vocabulary is the sorted distinct bytes,
/// token i is vocabulary()[i] (nanoGPT's stoi / itos).
class CharTokenizer {
public:
    /// The vocabulary of `text`: its distinct bytes in increasing order. Error(value) for an
    /// empty text, which has none.
    explicit CharTokenizer(std::string_view text);

    /// The number of tokens (distinct bytes of the text the tokenizer was built from).
    std::int64_t vocab_size() const { return std::int64_t(vocabulary_.size()); }
    /// The vocabulary in token order: token i stands for the byte vocabulary()[i].
    const std::string& vocabulary() const { return vocabulary_; }

    /// The token ids of `text`, one per byte: an i64 tensor [text.size()] on the CPU. Error(value)
    /// naming the character and its position for a byte outside the vocabulary.
    Tensor encode(std::string_view text) const;
    /// The text of `tokens`, an i64 tensor of any shape, read in row-major order (a [1, T] batch
    /// of one gives its row). Error(dtype) for another dtype, Error(index) naming the token and
    /// its position for an id outside [0, vocab_size()).
    std::string decode(const Tensor& tokens) const;

private:
    std::string vocabulary_;
    std::array<std::int16_t, 256> token_of_byte_{};  // -1 for a byte outside the vocabulary
};

}  // namespace tinyamp::data
