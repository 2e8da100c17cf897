// autocast_trace: one training step of a small MLP under bf16 autocast, recorded op by op.
// Prints each autocast decision, then writes the trace as JSON and as a Graphviz picture
// colored by dtype. Usage: autocast_trace [output folder] (default: the current folder).
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include <tinyamp/tinyamp.h>

using namespace tinyamp;

namespace {

void write(const std::string& path, const std::string& text)
{
    std::ofstream out(path);
    out << text;
    if (!out) throw Error(ErrorKind::io, "cannot write " + path);
}

}  // namespace

int main(int argc, char** argv)
{
    const std::string folder = argc > 1 ? argv[1] : ".";
    if (argc > 2 || folder.starts_with("-")) {
        std::cerr << "usage: autocast_trace [FOLDER]\n"
                     "  runs one MLP step under bf16 autocast and writes its trace to FOLDER (default .):\n"
                     "  mlp_bf16_trace.json, mlp_bf16_trace.dot and, with Graphviz, mlp_bf16_trace.svg\n";
        return folder == "--help" || folder == "-h" ? 0 : 2;
    }
    Generator gen(0);
    const Tensor x = randn({8, 4}, f32, gen).set_name("x");
    const Tensor y = tensor({0, 1, 2, 0, 1, 2, 0, 1}, {8}, i64).set_name("labels");
    const Tensor w1 = mul(randn({16, 4}, f32, gen), 0.5).requires_grad_().set_name("w1");
    const Tensor b1 = zeros({16}).requires_grad_().set_name("b1");
    const Tensor w2 = mul(randn({3, 16}, f32, gen), 0.25).requires_grad_().set_name("w2");
    const Tensor b2 = zeros({3}).requires_grad_().set_name("b2");

    std::cout << "Expect: both linear layers run in bf16 (their f32 weights are cast once and cached),\n"
                 "relu follows its input (bf16), cross_entropy goes back to f32, and every gradient\n"
                 "reaches the f32 weights through the casts.\n\n";
    trace::Trace recorded;
    {
        trace::TraceRecorder recorder(recorded);
        Tensor loss;
        {
            amp::autocast region("cpu");
            loss = cross_entropy(linear(relu(linear(x, w1, b1)), w2, b2), y);
        }
        loss.backward();
    }
    for (const trace::Event& e : recorded.events())
        if (e.phase == trace::Phase::forward) std::cout << "  " << e.op << ": " << e.why << '\n';

    // The claims: x and the four parameters are cast to bf16, the parameters through the cache,
    // and cross_entropy's input back to f32; the gradients reach the f32 weights.
    int casts = 0, stored = 0;
    for (const trace::Event& e : recorded.events()) {
        casts += e.is_cast ? 1 : 0;
        stored += e.cache == trace::CacheEvent::stored ? 1 : 0;
    }
    const bool ok = casts == 6 && stored == 4 && w1.grad().dtype() == f32 && w2.grad().dtype() == f32;
    std::cout << "\ncasts: " << casts << " (" << stored << " stored in the cache); w1.grad is " << dtype_name(w1.grad().dtype())
              << (ok ? "; all as expected\n" : "; NOT as expected\n");

    write(folder + "/mlp_bf16_trace.json", recorded.to_json());
    write(folder + "/mlp_bf16_trace.dot", recorded.to_dot());
    std::cout << "wrote " << folder << "/mlp_bf16_trace.json and .dot\n";
    const std::string render = "dot -Tsvg '" + folder + "/mlp_bf16_trace.dot' -o '" + folder + "/mlp_bf16_trace.svg' 2>/dev/null";
    if (std::system("command -v dot >/dev/null 2>&1") == 0 && std::system(render.c_str()) == 0)
        std::cout << "wrote " << folder << "/mlp_bf16_trace.svg\n";
    return ok ? 0 : 1;
}
