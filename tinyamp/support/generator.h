#pragma once
/// \file
/// A seeded random number generator, so every random tensor in tests and lessons can be made
/// again bit for bit.
///
/// mt19937_64's output is fixed by the C++ standard; the conversions to uniform and normal
/// numbers are written here (not `std::*_distribution`, whose output differs between standard
/// libraries).

#include <cstdint>
#include <random>

namespace tinyamp {

/// A seeded source of random numbers (PyTorch's torch.Generator), built on `std::mt19937_64`.
/// rand(), randn(), nn::Dropout and data::DataLoader draw from one; the same seed gives the same numbers
/// on every platform.
class Generator {
public:
    /// A generator seeded with \p seed.
    explicit Generator(std::uint64_t seed = 0) : engine_(seed), seed_(seed) {}
    /// Restarts the sequence from \p seed, as a new Generator(seed) would (torch.Generator.manual_seed).
    void manual_seed(std::uint64_t seed);
    std::uint64_t seed() const { return seed_; }  ///< the seed last set (torch.Generator.initial_seed)

    std::uint64_t next_u64() { return engine_(); }  ///< the next raw 64 random bits
    /// Uniform in [0, 1), with 53 random bits.
    double uniform();
    /// Standard normal (Box-Muller; the second value of each pair is kept for the next call).
    double normal();

private:
    std::mt19937_64 engine_;
    std::uint64_t seed_;
    bool has_spare_ = false;
    double spare_ = 0.0;
};

/// The generator used when none is passed (seed 0 at start; reseed with manual_seed).
/// Not thread-safe: a thread that draws random numbers should pass its own Generator.
Generator& default_generator();
/// Reseeds the default generator, like torch.manual_seed.
void manual_seed(std::uint64_t seed);

}  // namespace tinyamp
