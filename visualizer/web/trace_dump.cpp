// Prints a scenario's trace as JSON (Trace::to_json: every op, cast and cache hit, with its
// dtypes, shapes and value statistics) after a number of training steps (a recorded scenario's
// as its file holds it), and nothing else:
//
//     viz_trace_dump SCENARIO STEPS
//     viz_trace_dump --list          the scenarios' names (Scenario::names()), one per line
//
// Built twice, natively and to WebAssembly for node (web/CMakeLists.txt), so that
// tests/web/compare_traces.py can hold the browser's training step to the native one's, event by
// event: the page runs the same library, not a look-alike.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "tinyamp/support/parallel.h"
#include "visualizer/scenarios/scenario.h"

int main(int argc, char** argv)
{
    if (argc == 2 && std::string(argv[1]) == "--list") {
        for (const std::string& name : tinyamp::viz::Scenario::names()) std::puts(name.c_str());
        return 0;
    }
    if (argc != 3) {
        std::fprintf(stderr, "usage: viz_trace_dump SCENARIO STEPS | --list\n");
        return 2;
    }
    try {
        tinyamp::set_num_threads(1);  // as the page: one thread
        tinyamp::viz::Scenario scenario(tinyamp::viz::Scenario::preset(argv[1]));
        const long steps = std::atol(argv[2]);
        // A recorded scenario (ddp-bf16) takes no steps: its trace is the file's, on both sides.
        if (steps > 0 && scenario.options().recorded.empty()) scenario.step(steps);
        std::puts(scenario.trace().to_json().c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "viz_trace_dump: %s\n", e.what());
        return 1;
    }
    return 0;
}
