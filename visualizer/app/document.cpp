#include "visualizer/app/document.h"

#include <utility>

namespace tinyamp::viz {

Document::Document(trace::Trace trace, std::string title, std::optional<std::set<std::string>> collapsed)
    : title_(std::move(title)),
      trace_(std::move(trace)),
      first_collapsed_(default_collapsed(trace::build_graph(trace_))),
      collapsed_(collapsed ? std::move(*collapsed) : first_collapsed_),
      view_(build_module_view(trace_, collapsed_)),
      stepper_(view_.graph, trace_.events().size())
{
}

void Document::set_collapsed(std::set<std::string> modules)
{
    ModuleView view = build_module_view(trace_, modules);  // first, so a failure changes nothing
    const std::string selected_name = selected_ >= 0 ? view_.graph.nodes[std::size_t(selected_)].name : "";
    collapsed_ = std::move(modules);
    view_ = std::move(view);
    const Stepper previous = stepper_;
    stepper_ = Stepper(view_.graph, trace_.events().size());
    stepper_.seek(previous.position());
    stepper_.set_speed(previous.speed());
    if (previous.playing()) stepper_.play();
    selected_ = selected_name.empty() ? -1 : view_.graph.find(selected_name);
}

void Document::expand(const std::string& module)
{
    std::set<std::string> modules = collapsed_;
    modules.erase(module);
    set_collapsed(std::move(modules));
}

void Document::collapse(const std::string& module)
{
    std::set<std::string> modules = collapsed_;
    modules.insert(module);
    set_collapsed(std::move(modules));
}

int Document::find_or_reveal(const std::string& name)
{
    if (const std::string module = module_hiding(trace_, view_.graph, name); !module.empty()) expand(module);
    return find_node(name);
}

int Document::find_node(const std::string& name) const { return viz::find_node(trace_, view_.graph, name); }

}  // namespace tinyamp::viz
