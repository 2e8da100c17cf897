// An outside program on the installed tinyamp::distributed: joins the process group (one
// process here, MPI's singleton; the same program runs on many under mpiexec), averages a
// tensor over the ranks and prints it.
#include <cstdio>

#include <tinyamp/distributed/collectives.h>
#include <tinyamp/distributed/process_group.h>
#include <tinyamp/tinyamp.h>

int main(int argc, char** argv)
{
    namespace dist = tinyamp::distributed;
    dist::init_process_group(argc, argv);
    const tinyamp::Tensor t = tinyamp::full({2}, 3.0 * (dist::get_rank() + 1));
    dist::all_reduce(t, dist::ReduceOp::AVG);
    std::printf("distributed: rank %d of %d, average %g\n", dist::get_rank(), dist::get_world_size(), t.at({0}));
    dist::destroy_process_group();
    return 0;
}
