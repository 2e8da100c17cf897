// CharTokenizer: the vocabulary of the shipped text, encode/decode round trips, and errors that
// name the character or token at fault.
#include <doctest/doctest.h>

#include <string>

#include <tinyamp/tinyamp.h>

#include "tests/support/expect_error.h"

using namespace tinyamp;
using tinyamp::test::error_message;

namespace {

const std::string& kjv_text()
{
    static const std::string text = data::load_text(data::data_path("kjv_1mb.txt.gz"));
    return text;
}

}  // namespace

TEST_CASE("CharTokenizer: the shipped text has 62 distinct characters, sorted by byte")
{
    const data::CharTokenizer tokenizer(kjv_text());
    MESSAGE("vocab_size of data/kjv_1mb.txt.gz: ", tokenizer.vocab_size());
    CHECK(tokenizer.vocab_size() == 62);
    // No Q, X or digits in Genesis 1:1 to Judges 19:17 (Q first appears later in the KJV).
    CHECK(tokenizer.vocabulary() == "\n !'(),-.:;?ABCDEFGHIJKLMNOPRSTUVWYZabcdefghijklmnopqrstuvwxyz");
    CHECK(tokenizer.encode("In the").to_vector() == std::vector<double>{20, 49, 1, 55, 43, 40});
}

TEST_CASE("CharTokenizer: encode then decode gives the shipped text back, byte for byte")
{
    const data::CharTokenizer tokenizer(kjv_text());
    const Tensor tokens = tokenizer.encode(kjv_text());
    CHECK(tokens.dtype() == i64);
    CHECK(tokens.shape() == Shape{999808});
    CHECK(tokenizer.decode(tokens) == kjv_text());
    // A [1, T] batch of one decodes as its row.
    CHECK(tokenizer.decode(tokens.narrow(0, 0, 16).reshape({1, 16})) == "In the beginning");
}

TEST_CASE("CharTokenizer: a small text's vocabulary, and bytes above 127 (UTF-8) round-trip")
{
    const data::CharTokenizer hello("hello");
    CHECK(hello.vocabulary() == "ehlo");
    CHECK(hello.encode("hole").to_vector() == std::vector<double>{1, 3, 2, 0});
    CHECK(hello.encode("").shape() == Shape{0});
    CHECK(hello.decode(hello.encode("")).empty());

    const std::string accented = "caf\xc3\xa9 na\xc3\xafve";  // "café naïve" in UTF-8: one token per byte
    const data::CharTokenizer utf8(accented);
    CHECK(utf8.vocab_size() == 10);
    CHECK(utf8.decode(utf8.encode(accented)) == accented);
}

TEST_CASE("CharTokenizer errors name the character or token, its position and the fix")
{
    CHECK(error_message([] { data::CharTokenizer(""); }, ErrorKind::value).find("the text is empty") != std::string::npos);

    const data::CharTokenizer tokenizer(kjv_text());
    const std::string unknown = error_message([&] { tokenizer.encode("Quit"); }, ErrorKind::value);
    CHECK(unknown.find("the character 'Q' (byte 81) at position 0 is not in the vocabulary (62 characters") != std::string::npos);
    CHECK(unknown.find("build the tokenizer from a text that contains every character") != std::string::npos);
    CHECK(error_message([&] { tokenizer.encode("a\tb"); }, ErrorKind::value).find("byte 0x09 at position 1") != std::string::npos);

    CHECK(error_message([&] { tokenizer.decode(tensor({1, 2}, f32)); }, ErrorKind::dtype).find("got a f32 tensor (convert it with .to(i64))") !=
          std::string::npos);
    CHECK(error_message([&] { tokenizer.decode(tensor({1, 62}, i64)); }, ErrorKind::index)
              .find("token 62 at position 1 is outside the vocabulary of 62 tokens (0 to 61)") != std::string::npos);
    CHECK(error_message([&] { tokenizer.decode(tensor({-1}, i64)); }, ErrorKind::index).find("token -1 at position 0") !=
          std::string::npos);
    CHECK(error_message([&] { tokenizer.decode(Tensor()); }, ErrorKind::state).find("undefined") != std::string::npos);
}
