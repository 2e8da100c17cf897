// minifloat.h against ml_dtypes, from the file tools/minifloat/make_ml_dtypes_oracle.py wrote
// with ml_dtypes (its version is in the file's header): every code's value, and the codes of
// 2^20 f32 inputs per format in the non-saturating mode (ml_dtypes' astype does not saturate),
// which this test draws again with the same splitmix64. The codes are checked as one FNV-1a hash
// per 4096 inputs, and the first 1024 inputs one by one, so a mismatch is named.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tinyamp/values/minifloat.h"

namespace mf = tinyamp::minifloat;

namespace {

/// One format's section of the file.
struct OracleFormat {
    std::string name, ml_dtypes_name;
    int bits = 0, mantissa_bits = 0, lo = 0, hi = 0;
    std::uint64_t seed = 0, count = 0, chunk = 0;
    std::vector<std::uint32_t> decoded;  // f32 bits of each code's value
    std::vector<std::uint64_t> hashes;   // one per chunk
    std::vector<std::pair<std::uint32_t, std::uint8_t>> pairs;
};

std::vector<OracleFormat> read_oracle()
{
    std::ifstream in(TINYAMP_MINIFLOAT_ORACLE);
    REQUIRE_MESSAGE(in, "cannot open " << TINYAMP_MINIFLOAT_ORACLE);
    std::vector<OracleFormat> formats;
    std::string line;
    bool ended = false;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        std::string kind;
        words >> kind;
        if (kind == "format") {
            OracleFormat f;
            words >> f.name >> f.ml_dtypes_name >> f.bits >> f.mantissa_bits >> f.lo >> f.hi >> std::hex >> f.seed >>
                std::dec >> f.count >> f.chunk;
            formats.push_back(f);
        } else if (kind == "decode") {
            unsigned code = 0;
            std::uint32_t bits = 0;
            words >> std::hex >> code >> bits;
            REQUIRE(code == formats.back().decoded.size());
            formats.back().decoded.push_back(bits);
        } else if (kind == "chunk") {
            std::size_t index = 0;
            std::uint64_t hash = 0;
            words >> index >> std::hex >> hash;
            REQUIRE(index == formats.back().hashes.size());
            formats.back().hashes.push_back(hash);
        } else if (kind == "pair") {
            std::uint32_t input = 0;
            unsigned code = 0;
            words >> std::hex >> input >> code;
            formats.back().pairs.emplace_back(input, std::uint8_t(code));
        } else if (kind == "end") {
            ended = true;
        }
        REQUIRE_MESSAGE(!words.fail(), "cannot read the line: " << line);
    }
    REQUIRE_MESSAGE(ended, "the oracle file is cut short");
    return formats;
}

const mf::Format& format_named(const std::string& name)
{
    for (const mf::Format* f : mf::kFormats)
        if (name == f->name) return *f;
    FAIL("no format " << name);
    return mf::f8e4m3fn;
}

/// The i-th input (i = 0, 1, ...) exactly as make_ml_dtypes_oracle.py's draw_inputs() makes it.
std::uint32_t draw_input(const OracleFormat& f, std::uint64_t i)
{
    std::uint64_t z = f.seed + (i + 1) * 0x9E3779B97F4A7C15u;  // splitmix64, counter-based
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    const std::uint64_t r = z ^ (z >> 31);
    const auto raw = std::uint32_t(r >> 32);
    if ((r & 3) < 2) return raw;  // any f32 bit pattern
    const auto sign = std::uint32_t((r >> 2) & 1);
    const auto field = std::uint32_t(((r >> 8) & 0xFFFF) % std::uint64_t(f.hi - f.lo + 1)) + std::uint32_t(f.lo + 127);
    std::uint32_t fraction = raw & 0x7FFFFF;
    if ((r & 3) == 3) fraction &= 0x7FFFFF & ~((std::uint32_t{1} << (22 - f.mantissa_bits)) - 1);  // values and ties
    return (sign << 31) | (field << 23) | fraction;
}

std::uint64_t fnv1a64(const std::vector<std::uint8_t>& bytes)
{
    std::uint64_t h = 0xCBF29CE484222325u;
    for (std::uint8_t b : bytes) h = (h ^ b) * 0x100000001B3u;
    return h;
}

}  // namespace

TEST_CASE("minifloat oracle: every code decodes as ml_dtypes says")
{
    const std::vector<OracleFormat> formats = read_oracle();
    REQUIRE(formats.size() == mf::kFormats.size());
    for (const OracleFormat& o : formats) {
        const mf::Format& f = format_named(o.name);
        CAPTURE(f.name);
        CHECK(o.ml_dtypes_name == f.ml_dtypes_name);
        REQUIRE(o.decoded.size() == (std::size_t{1} << f.bits));
        for (std::size_t code = 0; code < o.decoded.size(); ++code) {
            CAPTURE(code);
            const double want = double(std::bit_cast<float>(o.decoded[code]));
            const double got = mf::decode(f, std::uint8_t(code));
            if (std::isnan(want)) CHECK(std::isnan(got));
            else CHECK(got == want);
            CHECK(std::signbit(got) == std::signbit(want));
        }
    }
}

TEST_CASE("minifloat oracle: 2^20 inputs per format encode as ml_dtypes does (non-saturating)")
{
    const std::vector<OracleFormat> formats = read_oracle();
    for (const OracleFormat& o : formats) {
        const mf::Format& f = format_named(o.name);
        CAPTURE(f.name);
        REQUIRE(o.hashes.size() * o.chunk == o.count);
        REQUIRE(o.count >= 1'000'000);
        // The inputs written out: the same draw here, and the same codes.
        for (std::size_t i = 0; i < o.pairs.size(); ++i) {
            const auto [input, code] = o.pairs[i];
            REQUIRE_MESSAGE(draw_input(o, i) == input, "input " << i << " is drawn differently from the script");
            const std::uint8_t got = mf::encode(f, std::bit_cast<float>(input), mf::Overflow::non_saturating);
            CHECK_MESSAGE(got == code, "input 0x" << std::hex << input << ": tinyamp 0x" << int(got) << ", ml_dtypes 0x"
                                                  << int(code));
        }
        // All of them, by chunk.
        int bad_chunks = 0;
        std::vector<std::uint8_t> codes(o.chunk);
        for (std::size_t c = 0; c < o.hashes.size(); ++c) {
            for (std::size_t j = 0; j < o.chunk; ++j) {
                const float x = std::bit_cast<float>(draw_input(o, c * o.chunk + j));
                codes[j] = mf::encode(f, x, mf::Overflow::non_saturating);
            }
            if (fnv1a64(codes) != o.hashes[c] && ++bad_chunks <= 5)
                FAIL_CHECK("the codes of inputs " << c * o.chunk << " to " << (c + 1) * o.chunk - 1 << " differ from ml_dtypes'");
        }
        CHECK_MESSAGE(bad_chunks == 0, bad_chunks << " of " << o.hashes.size() << " chunks differ");
    }
}
