#include "tinyamp/data/char_tokenizer.h"

#include <cstdio>

#include "tinyamp/tensor/factories.h"

namespace tinyamp::data {
namespace {

// 'Q' (byte 81) for a printable character, byte 0x0A for the others: an error names it readably.
std::string describe_byte(unsigned char byte)
{
    char text[32];
    if (byte >= 0x20 && byte < 0x7f)
        std::snprintf(text, sizeof text, "'%c' (byte %u)", char(byte), unsigned(byte));
    else
        std::snprintf(text, sizeof text, "byte 0x%02X", unsigned(byte));
    return text;
}

}  // namespace

CharTokenizer::CharTokenizer(std::string_view text)
{
    TINYAMP_CHECK(!text.empty(), value, "CharTokenizer: the text is empty, so it has no characters to make a vocabulary of");
    std::array<bool, 256> seen{};
    for (const char c : text) seen[static_cast<unsigned char>(c)] = true;
    token_of_byte_.fill(-1);
    for (std::size_t byte = 0; byte < seen.size(); ++byte) {
        if (!seen[byte]) continue;
        token_of_byte_[byte] = std::int16_t(vocabulary_.size());
        vocabulary_.push_back(char(byte));
    }
}

Tensor CharTokenizer::encode(std::string_view text) const
{
    Tensor tokens = empty(Shape{std::int64_t(text.size())}, i64);
    std::int64_t* ids = tokens.data_ptr<std::int64_t>();
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        TINYAMP_CHECK(token_of_byte_[byte] >= 0, value, "CharTokenizer::encode: the character ", describe_byte(byte),
                      " at position ", i, " is not in the vocabulary (", vocabulary_.size(),
                      " characters, taken from the text the tokenizer was built from); build the tokenizer from a text "
                      "that contains every character you encode");
        ids[i] = token_of_byte_[byte];
    }
    return tokens;
}

std::string CharTokenizer::decode(const Tensor& tokens) const
{
    TINYAMP_CHECK(tokens.defined(), state, "CharTokenizer::decode: the tokens tensor is undefined");
    TINYAMP_CHECK(tokens.dtype() == i64, dtype, "CharTokenizer::decode: token ids are i64, got a ", dtype_name(tokens.dtype()),
                  " tensor (convert it with .to(i64))");
    const Tensor ids = tokens.cpu().contiguous();
    const std::int64_t* id = ids.data_ptr<std::int64_t>();
    std::string text(std::size_t(ids.numel()), '\0');
    for (std::size_t i = 0; i < text.size(); ++i) {
        TINYAMP_CHECK(id[i] >= 0 && id[i] < vocab_size(), index, "CharTokenizer::decode: token ", id[i], " at position ", i,
                      " is outside the vocabulary of ", vocab_size(), " tokens (0 to ", vocab_size() - 1, ")");
        text[i] = vocabulary_[std::size_t(id[i])];
    }
    return text;
}

}  // namespace tinyamp::data
