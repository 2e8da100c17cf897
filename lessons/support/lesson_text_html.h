#pragma once
// A lesson's README.md as HTML, for the tour's page (index_page.cpp), natively and on the web
// page. Only the Markdown the lessons use: headings, paragraphs, lists (nested by indentation),
// tables, fenced code, block quotes; inline code, **bold**, *italic*, links and backslash escapes.
// Links: another lesson's folder becomes a jump to its section of the tour; any other relative
// link (the docs, which the tour does not carry) is shown as its path in the repository.
#include <string>

namespace tinyamp::lesson {

/// `markdown` (the README.md of lessons/`folder`/) as an HTML fragment.
std::string lesson_text_html(const std::string& markdown, const std::string& folder);

}  // namespace tinyamp::lesson
