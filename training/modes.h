#pragma once
// The precision modes of tinyamp-train, for every model it trains (digits MLP/CNN, the GPT).

#include <string>
#include <vector>

namespace tinyamp::train {

// The FP8 modes run every Linear layer through fp8_linear in an amp::fp8_autocast region (the
// rest in f32): per-tensor current scaling, Transformer Engine's delayed scaling (HYBRID: E4M3
// forward, E5M2 gradients, amax history of 16 steps), and MXFP8 (E4M3 in blocks of 32).
// Two more put the Linear layers in FP4: mxfp4 (E2M1, E8M0 per 32) and nvfp4 (E2M1, E4M3 per 16
// times an f32 tensor scale); neither is in fp8_modes().
enum class Mode { f32, bf16, f16_scaler, f16_no_scaler, fp8_current, fp8_delayed, mxfp8, mxfp4, nvfp4 };

/// "f32", "bf16", "f16-scaler", "f16-no-scaler", "fp8-current", "fp8-delayed", "mxfp8", "mxfp4", "nvfp4"; throws
/// Error kind value naming the choices otherwise.
Mode parse_mode(const std::string& name);
const char* mode_name(Mode mode);
std::vector<Mode> all_modes();  ///< the four AMP modes (--mode all)
std::vector<Mode> fp8_modes();  ///< the three FP8 modes (--mode fp8)

}  // namespace tinyamp::train
