#include "visualizer/app/controls_panel.h"
#include "visualizer/app/ui_scale.h"
#include "visualizer/app/ui_targets.h"

#include <imgui.h>

#include <array>
#include <cmath>
#include <set>
#include <string>

namespace tinyamp::viz {
namespace {

constexpr std::array kPolicies = {amp::CastPolicy::lower_precision_fp, amp::CastPolicy::fp32, amp::CastPolicy::fp32_set_opt_dtype,
                                  amp::CastPolicy::promote, amp::CastPolicy::banned};
constexpr const char* kNotListed = "(not listed)";

bool radio_pair(const char* label, bool& first, const char* first_name, const char* second_name)
{
    ImGui::TextUnformatted(label);
    ImGui::SameLine(ui_px(110));
    bool changed = false;
    // Noted as "dtype f16" (the label without its indent, then the choice) for scripts and the browser test.
    const std::string noted = std::string(label).substr(std::string(label).find_first_not_of(' ')) + " ";
    if (ImGui::RadioButton(first_name, first)) changed = !first, first = true;
    note_item(noted + first_name);
    ImGui::SameLine();
    if (ImGui::RadioButton(second_name, !first)) changed = first, first = false;
    note_item(noted + second_name);
    return changed;
}

// The model's radio buttons; into or out of the GPT, its batch and learning rate come along.
bool draw_model_choice(ScenarioOptions& o)
{
    bool changed = false;
    ImGui::TextUnformatted("model");
    const ImGuiStyle& style = ImGui::GetStyle();
    bool first = true;
    for (const char* model : {"mlp", "cnn", "deep", "gpt"}) {
        // On the label's line while they fit (at 1280x800 all four do), then on the next.
        ImGui::SameLine();
        const float width = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize(model).x;
        if (!first && ImGui::GetContentRegionAvail().x < width) {
            ImGui::NewLine();
            ImGui::SetCursorPosX(ImGui::GetCursorPosX() + ImGui::CalcTextSize("model").x + style.ItemSpacing.x);
        }
        first = false;
        if (ImGui::RadioButton(model, o.model == model) && o.model != model) {
            // Into or out of the GPT: its batch (2 windows of text, one forward pass) and learning
            // rate, or the digits models' (32 images in 2 passes); the AMP settings stay.
            if ((o.model == "gpt") != (std::string(model) == "gpt")) {
                const ScenarioOptions defaults = std::string(model) == "gpt" ? Scenario::preset("gpt") : ScenarioOptions{};
                o.batch_size = defaults.batch_size;
                o.micro_batches = defaults.micro_batches;
                o.lr = defaults.lr;
            }
            o.model = model;
            changed = true;
        }
    }
    return changed;
}

// The GPT's attention: fused or composite, the context length, and q/k/v's initial std.
bool draw_gpt_controls(ScenarioOptions& o)
{
    bool changed = ImGui::Checkbox("fused attention", &o.fused_attention);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("On: one scaled_dot_product_attention op, its logits and softmax in f32 inside.\n"
                          "Off: the composite reference, matmul, mul, masked_fill, softmax and matmul as ops of their own.");
    ImGui::SameLine();
    int context = int(o.context);
    ImGui::SetNextItemWidth(ui_px(50));
    if (ImGui::SliderInt("context", &context, 2, 64)) o.context = context, changed = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Characters per sequence: the attention's logits are [batch, heads, context, context].");
    float qkv_std = float(o.qkv_init_std);
    ImGui::SetNextItemWidth(ui_px(120));
    if (ImGui::SliderFloat("q/k/v init std", &qkv_std, 0.0f, 64.0f, qkv_std == 0.0f ? "0.02" : "%.2f", ImGuiSliderFlags_Logarithmic))
        o.qkv_init_std = qkv_std, changed = true;
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("The std of c_attn's initial weights (the model's 0.02 at the left end). The logits grow with its square:\n"
                          "from about 24, f16 logits overflow in the composite attention (inf, then NaN in the softmax),\n"
                          "while the fused one keeps them in f32.");
    return changed;
}

// Autocast's switch and, when on, its dtype, policy table, cast cache and forward passes.
bool draw_autocast_controls(ScenarioOptions& o)
{
    bool changed = ImGui::Checkbox("autocast", &o.autocast);
    note_item("autocast");
    if (!o.autocast) return changed;
    bool bf16 = o.dtype == DType::bf16;
    if (radio_pair("  dtype", bf16, "bf16", "f16")) {
        o.dtype = bf16 ? DType::bf16 : DType::f16;
        changed = true;
    }
    bool cpu = o.table.name().rfind("cuda", 0) != 0;  // "cpu", "cpu (edited)", ...
    if (radio_pair("  table", cpu, "cpu", "cuda")) {
        o.table = cpu ? amp::PolicyTable::cpu() : amp::PolicyTable::cuda();
        changed = true;
    }
    if (o.table.entries() != amp::PolicyTable::builtin(cpu ? DeviceType::cpu : DeviceType::cuda).entries())
        ImGui::TextDisabled("  (edited: see the policy table tab)");
    changed |= ImGui::Checkbox("cast cache", &o.cache_enabled);
    note_item("cast cache");
    int micro = int(o.micro_batches);
    ImGui::SetNextItemWidth(ui_px(120));
    if (ImGui::SliderInt("forward passes per region", &micro, 1, 4)) o.micro_batches = micro, changed = true;
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Forward passes (micro-batches) inside one autocast region: from the second one on, the cast cache serves the weights' casts.");
    return changed;
}

// The GradScaler's switch and, when on, its initial scale, growth interval and factors.
bool draw_scaler_controls(ScenarioOptions& o)
{
    bool changed = ImGui::Checkbox("GradScaler", &o.scaler);
    note_item("GradScaler");
    if (!o.scaler) return changed;
    int log2_scale = int(std::lround(std::log2(o.scaler_options.init_scale)));
    ImGui::SetNextItemWidth(ui_px(120));
    if (ImGui::SliderInt("init scale 2^k", &log2_scale, 0, 32)) o.scaler_options.init_scale = std::ldexp(1.0, log2_scale), changed = true;
    int interval = int(o.scaler_options.growth_interval);
    ImGui::SetNextItemWidth(ui_px(120));
    if (ImGui::SliderInt("growth interval", &interval, 1, 2000, "%d", ImGuiSliderFlags_Logarithmic))
        o.scaler_options.growth_interval = interval, changed = true;
    float growth = float(o.scaler_options.growth_factor), backoff = float(o.scaler_options.backoff_factor);
    ImGui::SetNextItemWidth(ui_px(120));
    if (ImGui::SliderFloat("growth factor", &growth, 1.01f, 4.0f, "%.2f")) o.scaler_options.growth_factor = growth, changed = true;
    ImGui::SetNextItemWidth(ui_px(120));
    if (ImGui::SliderFloat("backoff factor", &backoff, 0.1f, 0.99f, "%.2f")) o.scaler_options.backoff_factor = backoff, changed = true;
    return changed;
}

// step, 10 steps, run or stop, restart.
void draw_training_buttons(bool running, TrainingActions& actions)
{
    if (ImGui::Button("step")) actions.steps = 1;
    note_item("step");
    ImGui::SameLine();
    if (ImGui::Button("10 steps")) actions.steps = 10;
    ImGui::SameLine();
    if (ImGui::Button(running ? "stop" : "run")) actions.toggle_run = true;
    ImGui::SameLine();
    if (ImGui::Button("restart")) actions.restart = true;
}

}  // namespace

bool draw_scenario_controls(ScenarioOptions& o, bool running, TrainingActions& actions)
{
    bool changed = draw_model_choice(o);
    if (o.model == "gpt") changed |= draw_gpt_controls(o);
    changed |= draw_autocast_controls(o);
    changed |= draw_scaler_controls(o);
    float lr = float(o.lr);
    ImGui::SetNextItemWidth(ui_px(120));
    if (ImGui::SliderFloat("learning rate", &lr, 0.001f, 0.5f, "%.3f", ImGuiSliderFlags_Logarithmic)) o.lr = lr, changed = true;
    draw_training_buttons(running, actions);
    return changed;
}

bool draw_policy_table(ScenarioOptions& o, const trace::Trace& trace)
{
    ImGui::TextWrapped("Table \"%s\". Move an op to another policy and the scenario restarts with it.", o.table.name().c_str());
    std::set<std::string> ops;  // the table's ops and the ops this trace ran (forward events)
    for (const auto& [op, policy] : o.table.entries()) ops.insert(op);
    for (const trace::Event& e : trace.events())
        if (e.phase == trace::Phase::forward && !e.is_cast) ops.insert(e.op);

    bool changed = false;
    if (!ImGui::BeginTable("policies", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_ScrollY)) return false;
    ImGui::TableSetupScrollFreeze(0, 1);
    // The policy column fits the longest policy name and its arrow, so what a student edits is
    // never cut; a long op name is, and its row's tooltip gives it whole.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float policy_width = ImGui::CalcTextSize("fp32_set_opt_dtype").x + ImGui::GetFrameHeight() + 2 * style.FramePadding.x;
    ImGui::TableSetupColumn("op", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("policy", ImGuiTableColumnFlags_WidthFixed, policy_width);
    ImGui::TableHeadersRow();
    for (const std::string& op : ops) {
        const auto policy = o.table.lookup(op);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(op.c_str());
        if (ImGui::IsItemHovered() && ImGui::CalcTextSize(op.c_str()).x > ImGui::GetColumnWidth()) ImGui::SetTooltip("%s", op.c_str());
        ImGui::TableNextColumn();
        ImGui::PushID(op.c_str());
        ImGui::SetNextItemWidth(-1);
        if (ImGui::BeginCombo("##policy", policy ? amp::policy_name(*policy) : kNotListed)) {
            for (const amp::CastPolicy p : kPolicies) {
                if (ImGui::Selectable(amp::policy_name(p), policy == p) && policy != p) {
                    o.table.set(op, p);
                    changed = true;
                }
            }
            if (ImGui::Selectable(kNotListed, !policy) && policy) {
                o.table.remove(op);
                changed = true;
            }
            ImGui::EndCombo();
        }
        ImGui::PopID();
    }
    ImGui::EndTable();
    const std::string edited = " (edited)";
    if (changed && !o.table.name().ends_with(edited)) o.table.set_name(o.table.name() + edited);
    return changed;
}

}  // namespace tinyamp::viz
