#pragma once
// The model the checkpoint fuzz target loads into, and the checkpoint seeds are written from:
// one definition, so that the seeds always fit the target (tests/io/fuzz_corpus_test.cpp loads
// them into it too).
#include <memory>

#include <tinyamp/tinyamp.h>

namespace tinyamp::fuzz {

/// Linear(4, 3), ReLU, Linear(3, 2), its weights from manual_seed(1).
inline std::shared_ptr<nn::Sequential> checkpoint_model()
{
    manual_seed(1);
    auto model = std::make_shared<nn::Sequential>();
    model->emplace_back<nn::Linear>(4, 3);
    model->emplace_back<nn::ReLU>();
    model->emplace_back<nn::Linear>(3, 2);
    return model;
}

}  // namespace tinyamp::fuzz
