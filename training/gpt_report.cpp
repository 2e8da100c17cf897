#include "training/gpt_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <tinyamp/tinyamp.h>

#include "training/svg_plot.h"
#include "training/progress.h"

namespace tinyamp::train {
namespace {

std::string run_label(const GptTrainConfig& config)
{
    return std::string(mode_name(config.mode)) + (config.model.fused_attention ? "" : " (composite attention)");
}

// The largest value over the blocks of one evaluation.
double max_logit(const GptEval& e)
{
    double m = 0;
    for (const BlockStats& b : e.blocks) m = std::max(m, b.attention_logits.max_abs);
    return m;
}
double max_activation(const GptEval& e)
{
    double m = 0;
    for (const BlockStats& b : e.blocks) m = std::max(m, b.activations.max_abs);
    return m;
}
double f16_overflow(const GptEval& e)
{
    RangeStats all;
    for (const BlockStats& b : e.blocks) {
        merge(all, b.attention_logits);
        merge(all, b.activations);
    }
    return all.f16_overflow;
}
std::int64_t nonfinite(const GptEval& e)
{
    std::int64_t n = 0;
    for (const BlockStats& b : e.blocks) n += b.attention_logits.nonfinite + b.activations.nonfinite;
    return n;
}

void write_svg(const std::string& path, const std::string& svg, std::vector<std::string>& written)
{
    io::write_file_atomically(path, svg);
    written.push_back(path);
}

}  // namespace

void print_gpt_eval(const GptTrainConfig& config, const GptEval& e)
{
    std::printf("%-14s step %5lld  train %.4f  val %.4f  |logit| max %9.4g  |act| max %9.4g  f16 overflow %6.3f%%  nonfinite %lld",
                run_label(config).c_str(), static_cast<long long>(e.step), e.train_loss, e.val_loss, max_logit(e), max_activation(e),
                100 * f16_overflow(e), static_cast<long long>(nonfinite(e)));
    if (!e.grad_underflow.empty()) {
        std::printf("  grad underflow");
        for (double g : e.grad_underflow) std::printf(" %.2f%%", 100 * g);
    }
    std::printf("\n");
    std::fflush(stdout);
}

void print_gpt_summary(const std::vector<GptRunRecord>& runs)
{
    std::printf("\n%-34s %9s %8s %11s %11s %9s %10s %10s %11s\n", "mode", "val loss", "skipped", "max |logit|", "max |act|", "nonfinite",
                "s/step", "tokens/s", "peak act");
    for (const GptRunRecord& r : runs) {
        const GptResult& res = r.result;
        if (res.evals.empty()) continue;
        std::int64_t skipped = 0, peak = 0, bad = 0;
        double logit = 0, act = 0;
        std::vector<double> seconds;
        for (const GptStep& s : res.steps) {
            skipped += s.skipped;
            peak = std::max(peak, s.peak_activation_bytes);
            seconds.push_back(s.seconds);
        }
        for (const GptEval& e : res.evals) {
            logit = std::max(logit, max_logit(e));
            act = std::max(act, max_activation(e));
            bad += nonfinite(e);
        }
        const double step_s = median(seconds);
        const double tokens = double(r.config.batch_size * r.config.model.block_size);
        std::printf("%-34s %9.4f %8lld %11.4g %11.4g %9lld %10.3f %10.0f %11s\n", run_label(r.config).c_str(), res.evals.back().val_loss,
                    static_cast<long long>(skipped), logit, act, static_cast<long long>(bad), step_s, step_s > 0 ? tokens / step_s : 0.0,
                    format_bytes(peak).c_str());
    }
    std::printf("(val loss: the last evaluation, nats per character; max: over all evaluations and blocks; s/step: median)\n");
}

std::vector<std::string> write_gpt_plots(const std::vector<GptRunRecord>& runs, const std::string& prefix)
{
    const std::filesystem::path folder = std::filesystem::path(prefix).parent_path();
    if (!folder.empty()) std::filesystem::create_directories(folder);
    plot::LinePlot loss{.title = "Validation loss", .x_label = "step", .y_label = "cross-entropy (nats/char)"};
    plot::LinePlot logits{.title = "Largest |attention logit| of any block", .x_label = "step", .y_label = "|q k / sqrt(d)|", .log_y = true};
    logits.y_marks.push_back({65504, "f16 max 65504", "#d64545"});
    plot::LinePlot scale{.title = "GradScaler scale", .x_label = "step", .y_label = "scale", .log_y = true};
    for (const GptRunRecord& r : runs) {
        plot::Series l{.label = run_label(r.config)}, g{.label = run_label(r.config)};
        for (const GptEval& e : r.result.evals) {
            if (std::isfinite(e.val_loss)) {
                l.x.push_back(double(e.step));
                l.y.push_back(e.val_loss);
            }
            g.x.push_back(double(e.step));
            g.y.push_back(max_logit(e));
        }
        if (!l.x.empty()) loss.series.push_back(l);
        if (!g.x.empty()) logits.series.push_back(g);
        if (r.config.mode == Mode::f16_scaler) {
            plot::Series s{.label = run_label(r.config)};
            for (const GptStep& st : r.result.steps) {
                s.x.push_back(double(st.step));
                s.y.push_back(st.scale);
            }
            if (!s.x.empty()) scale.series.push_back(s);
        }
    }
    std::vector<std::string> written;
    if (!loss.series.empty()) write_svg(prefix + "_loss.svg", plot::render_svg(loss), written);
    if (!logits.series.empty()) write_svg(prefix + "_logits.svg", plot::render_svg(logits), written);
    if (!scale.series.empty()) write_svg(prefix + "_scale.svg", plot::render_svg(scale), written);
    return written;
}

}  // namespace tinyamp::train
