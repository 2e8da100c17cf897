#include "tinyamp/distributed/collective_trace.h"

#include <utility>

#include "tinyamp/distributed/process_group.h"

namespace tinyamp::distributed::detail {

trace::Collective collective_on_this_rank(const char* reduce_op, DType dtype, std::int64_t bytes, int root)
{
    return trace::Collective{.reduce_op = reduce_op,
                             .dtype = dtype,
                             .bytes = bytes,
                             .world_size = get_world_size(),
                             .rank = get_rank(),
                             .root = root};
}

trace::TensorInfo gradient_info(const Tensor& parameter, const Tensor& grad, bool with_stats)
{
    trace::TensorInfo info = trace::describe(grad, with_stats);
    info.name = parameter.name().empty() ? "grad" : parameter.name() + ".grad";
    return info;
}

void record_collective(const char* name, const trace::Collective& collective, std::vector<trace::TensorInfo> took,
                       std::vector<trace::TensorInfo> gave, std::string why)
{
    trace::Trace* trace = trace::current();
    if (!trace) return;
    trace::Event e;
    e.phase = trace::current_phase();
    e.op = name;
    e.inputs = std::move(took);
    e.outputs = std::move(gave);
    e.device_type = "cpu";  // collectives here take CPU tensors only
    e.why = std::move(why);
    e.module = trace::current_module_path();
    e.module_types = trace::current_module_types();
    e.collective = collective;
    trace->add(std::move(e));
}

}  // namespace tinyamp::distributed::detail
