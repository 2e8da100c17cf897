// Records tinyamp-viz's ddp-bf16 scenario: one training step of the digits MLP wrapped in
// DistributedDataParallel on 2 ranks, each on its half of a global batch of 64, the model in f32
// and its gradients all-reduced in bf16 (PyTorch's bf16_compress_hook), in buckets of at most
// 64 KiB (DDP's 25 MiB would put this model's 170 KB of bf16 gradients in one bucket; smaller
// ones show the buckets leaving the rank while backward still runs). Every rank traces its step;
// rank 0's trace is what the scenario shows (the visualizer is one process, without MPI).
//
//     mpirun -np 2 record-ddp-trace data/ddp_bf16_trace.json           writes rank 0's trace
//     mpirun -np 2 record-ddp-trace --check data/ddp_bf16_trace.json   the file has the events
//         recorded now: ops, phases, modules, dtypes, shapes, names, tensors up to renumbering,
//         collectives; not the values, which may differ in a last bit between CPUs (CTest runs it)
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <string>

#include <tinyamp/tinyamp.h>

#include "tinyamp/distributed/distributed_data_parallel.h"
#include "tinyamp/distributed/process_group.h"
#include "tests/distributed/ranks_started.h"
#include "training/models.h"
#include "training/trainer.h"

using namespace tinyamp;
namespace dist = tinyamp::distributed;

namespace {

constexpr std::int64_t kGlobalBatch = 64;
constexpr std::int64_t kBucketBytes = std::int64_t(64) << 10;
constexpr std::uint64_t kSeed = 0;  // the live scenarios' seed: the same weights and first batch

// This rank's share of the first global batch, the pixels scaled to 0..1 as the scenarios do.
data::Batch my_share()
{
    data::Dataset digits = data::load_digits(data::data_path("digits.csv.gz"));
    digits.features = div(digits.features, 16.0);
    const data::Dataset train = data::train_test_split(digits, train::TrainConfig{}.test_fraction, kSeed).first;
    data::DataLoader loader(train, kGlobalBatch, /*shuffle=*/true, /*drop_last=*/true, kSeed);
    loader.begin();
    const data::Batch batch = loader.batch(0);
    const std::int64_t share = kGlobalBatch / dist::get_world_size(), first = share * dist::get_rank();
    return {batch.features.narrow(0, first, share), batch.labels.narrow(0, first, share)};
}

// The step's forward and backward, recorded on this rank.
trace::Trace record_step()
{
    const data::Batch batch = my_share();
    manual_seed(kSeed);
    auto ddp = std::make_shared<dist::DistributedDataParallel>(train::make_model(train::ModelKind::mlp),
                                                               dist::DistributedDataParallelOptions{.gradient_dtype = bf16, .bucket_bytes = kBucketBytes});
    trace::Trace trace;
    {
        trace::TraceRecorder recorder(trace);
        cross_entropy((*ddp)(batch.features), batch.labels).backward();
    }
    return trace;
}

// Tensor ids are counts of every tensor the process made: two runs may number them apart. Each id
// is compared by the order in which it first appears in its trace.
class Renumbering {
public:
    std::size_t operator()(std::uint64_t id) { return ids_.try_emplace(id, ids_.size()).first->second; }

private:
    std::map<std::uint64_t, std::size_t> ids_;
};

// Where two tensor lists differ ("" when they agree), as "outputs[1].dtype".
std::string tensors_differ(const std::vector<trace::TensorInfo>& a, const std::vector<trace::TensorInfo>& b, const std::string& where,
                           Renumbering& in_a, Renumbering& in_b)
{
    if (a.size() != b.size()) return where + ": " + std::to_string(a.size()) + " tensors in the file, " + std::to_string(b.size()) + " now";
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::string at = where + "[" + std::to_string(i) + "]";
        if (a[i].dtype != b[i].dtype) return at + ".dtype: " + dtype_name(a[i].dtype) + " in the file, " + dtype_name(b[i].dtype) + " now";
        if (a[i].shape != b[i].shape) return at + ".shape: " + shape_str(a[i].shape) + " in the file, " + shape_str(b[i].shape) + " now";
        if (a[i].name != b[i].name) return at + ".name: \"" + a[i].name + "\" in the file, \"" + b[i].name + "\" now";
        if (in_a(a[i].id) != in_b(b[i].id)) return at + ".id: another tensor than the one recorded now";
    }
    return "";
}

// Where the committed trace differs from the one recorded now, or "".
std::string first_difference(const trace::Trace& file, const trace::Trace& now)
{
    const auto& a = file.events();
    const auto& b = now.events();
    if (a.size() != b.size()) return std::to_string(a.size()) + " events in the file, " + std::to_string(b.size()) + " recorded now";
    Renumbering in_a, in_b;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::string at = "events[" + std::to_string(i) + "]";
        const auto same_collective = [](const trace::Event& x, const trace::Event& y) {
            if (x.collective.has_value() != y.collective.has_value()) return false;
            if (!x.collective) return true;
            const trace::Collective &c = *x.collective, &d = *y.collective;
            return c.reduce_op == d.reduce_op && c.dtype == d.dtype && c.bytes == d.bytes && c.world_size == d.world_size && c.rank == d.rank &&
                   c.root == d.root;
        };
        if (a[i].op != b[i].op || a[i].phase != b[i].phase || a[i].is_cast != b[i].is_cast)
            return at + ": " + a[i].op + " (" + trace::phase_name(a[i].phase) + ") in the file, " + b[i].op + " (" + trace::phase_name(b[i].phase) +
                   ") now";
        if (a[i].module != b[i].module) return at + ".module: \"" + a[i].module + "\" in the file, \"" + b[i].module + "\" now";
        if (a[i].why != b[i].why) return at + ".why: \"" + a[i].why + "\" in the file, \"" + b[i].why + "\" now";
        if (!same_collective(a[i], b[i])) return at + ".collective differs";
        if (std::string d = tensors_differ(a[i].inputs, b[i].inputs, at + ".inputs", in_a, in_b); !d.empty()) return d;
        if (std::string d = tensors_differ(a[i].outputs, b[i].outputs, at + ".outputs", in_a, in_b); !d.empty()) return d;
    }
    return "";
}

// What rank 0 does with its trace: writes it, or compares it with the file. Returns the exit status.
int write_or_check(const trace::Trace& trace, const std::string& path, bool check)
{
    if (!check) {
        io::write_file_atomically(path, trace.to_json());
        std::printf("record-ddp-trace: wrote rank 0's trace, %zu events, to %s\n", trace.events().size(), path.c_str());
        return 0;
    }
    const std::string difference = first_difference(trace::Trace::from_json(io::read_file(path)), trace);
    if (difference.empty()) {
        std::printf("record-ddp-trace: %s holds the %zu events recorded now\n", path.c_str(), trace.events().size());
        return 0;
    }
    std::printf("record-ddp-trace: %s is not what the program records now: %s. Regenerate it: mpirun -np 2 record-ddp-trace %s\n",
                path.c_str(), difference.c_str(), path.c_str());
    return 1;
}

}  // namespace

int main(int argc, char** argv)
{
    dist::init_process_group(argc, argv);
    test::mark_rank_started();  // CTest's --check runs under run_mpi_test.sh, which looks for it
    int status = 0;
    try {
        const bool check = argc == 3 && std::string(argv[1]) == "--check";
        if (!(argc == 2 || check)) {
            if (dist::get_rank() == 0) std::fprintf(stderr, "usage: mpirun -np 2 record-ddp-trace [--check] TRACE.json\n");
            status = 2;
        } else if (dist::get_world_size() != 2) {
            if (dist::get_rank() == 0) std::fprintf(stderr, "record-ddp-trace: run it on 2 ranks (mpirun -np 2), as the scenario says\n");
            status = 2;
        } else {
            set_num_threads(1);  // the ranks share the machine's cores
            const trace::Trace trace = record_step();
            if (dist::get_rank() == 0) status = write_or_check(trace, argv[argc - 1], check);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "record-ddp-trace: %s: %s\n", dist::rank_name().c_str(), e.what());
        status = 1;
    }
    dist::destroy_process_group();
    return status;
}
