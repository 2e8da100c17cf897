#pragma once
// DOT text -> SVG text with Graphviz's `dot` layout, in-process (libgvc), when the lessons were
// built with Graphviz (scripts/install-deps.sh installs it). Without it the lessons still write
// the .dot files, which `dot -Tsvg file.dot -o file.svg` turns into pictures.
#include <optional>
#include <string>

namespace tinyamp::lesson {

bool graphviz_linked();
/// The SVG, or nullopt when Graphviz is not linked. Throws std::runtime_error when Graphviz
/// cannot read the DOT text.
std::optional<std::string> dot_to_svg(const std::string& dot);

}  // namespace tinyamp::lesson
