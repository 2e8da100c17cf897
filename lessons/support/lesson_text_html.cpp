#include "lessons/support/lesson_text_html.h"

#include <cctype>
#include <regex>
#include <sstream>
#include <vector>

#include "training/svg_plot.h"

namespace tinyamp::lesson {
using plot::escape_xml;

namespace {

using Lines = std::vector<std::string>;

bool blank(const std::string& line) { return line.find_first_not_of(" \t") == std::string::npos; }
std::size_t indent_of(const std::string& line) { return blank(line) ? std::string::npos : line.find_first_not_of(' '); }
bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// A link's target: "#NN_topic" for a lesson of the tour; a path relative to the repository for
// anything else relative (shown, not linked); web addresses as they are.
std::string link_html(const std::string& text_html, const std::string& target, const std::string& folder)
{
    static const std::regex lesson(R"(^(?:\.\./)?(\d\d_[a-z0-9_]+)/?(?:README\.md)?(#.*)?$)");
    std::smatch m;
    if (starts_with(target, "http://") || starts_with(target, "https://"))
        return "<a href=\"" + escape_xml(target) + "\">" + text_html + "</a>";
    if (std::regex_match(target, m, lesson)) return "<a href=\"#" + escape_xml(m[1].str()) + "\">" + text_html + "</a>";
    // lessons/FOLDER/../../docs/x.md -> docs/x.md
    std::vector<std::string> parts = {"lessons", folder};
    std::stringstream path(target);
    for (std::string part; std::getline(path, part, '/');) {
        if (part == "..") {
            if (!parts.empty()) parts.pop_back();
        } else if (part != "." && !part.empty()) {
            parts.push_back(part);
        }
    }
    std::string joined;
    for (const std::string& part : parts) joined += (joined.empty() ? "" : "/") + part;
    return text_html + " (<code>" + escape_xml(joined) + "</code>)";
}

// Emphasis and links in text that holds no code span; `text` is raw Markdown, the result HTML.
std::string emphasis(const std::string& text, const std::string& folder)
{
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '\\' && i + 1 < text.size() && std::string("\\`*_{}[]()#+-.!|<>").find(text[i + 1]) != std::string::npos) {
            out += escape_xml(std::string(1, text[i + 1]));
            i += 2;
            continue;
        }
        if (starts_with(text.substr(i), "**")) {
            const std::size_t end = text.find("**", i + 2);
            if (end != std::string::npos) {
                out += "<b>" + emphasis(text.substr(i + 2, end - i - 2), folder) + "</b>";
                i = end + 2;
                continue;
            }
        }
        if (c == '*' && i + 1 < text.size() && text[i + 1] != ' ') {
            const std::size_t end = text.find('*', i + 1);
            if (end != std::string::npos && text[end - 1] != ' ') {
                out += "<i>" + emphasis(text.substr(i + 1, end - i - 1), folder) + "</i>";
                i = end + 1;
                continue;
            }
        }
        if (c == '[') {
            const std::size_t close = text.find("](", i);
            const std::size_t end = close == std::string::npos ? close : text.find(')', close);
            if (end != std::string::npos) {
                out += link_html(emphasis(text.substr(i + 1, close - i - 1), folder), text.substr(close + 2, end - close - 2), folder);
                i = end + 1;
                continue;
            }
        }
        out += escape_xml(std::string(1, c));
        ++i;
    }
    return out;
}

// A line's inline Markdown: code spans kept verbatim (escaped), the rest through emphasis().
std::string inline_html(const std::string& text, const std::string& folder)
{
    std::string out, plain;
    for (std::size_t i = 0; i < text.size();) {
        if (text[i] == '`' && (i == 0 || text[i - 1] != '\\')) {
            const std::size_t end = text.find('`', i + 1);
            if (end != std::string::npos) {
                out += emphasis(plain, folder) + "<code>" + escape_xml(text.substr(i + 1, end - i - 1)) + "</code>";
                plain.clear();
                i = end + 1;
                continue;
            }
        }
        plain += text[i++];
    }
    return out + emphasis(plain, folder);
}

// A table row's cells: split on the bars that are not escaped (\|) and not inside code spans.
Lines table_cells(const std::string& row)
{
    std::string line = row.substr(row.find('|') + 1);
    if (const std::size_t last = line.find_last_not_of(' '); last != std::string::npos && line[last] == '|') line.erase(last);
    Lines cells(1);
    bool code = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '`') code = !code;
        if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
            cells.back() += "\\|";
            ++i;
        } else if (line[i] == '|' && !code) {
            cells.emplace_back();
        } else {
            cells.back() += line[i];
        }
    }
    for (std::string& cell : cells) {
        cell.erase(0, cell.find_first_not_of(' '));
        cell.erase(cell.find_last_not_of(' ') + 1);
    }
    return cells;
}

// "- x", "* x" or "12. x": the list kind ("ul"/"ol") and where the item's text starts; "" when
// the line is no list item.
std::string list_item(const std::string& line, std::size_t& text_at)
{
    const std::size_t at = line.find_first_not_of(' ');
    if (at == std::string::npos) return "";
    if ((line[at] == '-' || line[at] == '*') && line.size() > at + 1 && line[at + 1] == ' ') {
        text_at = at + 2;
        return "ul";
    }
    std::size_t digits = at;
    while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) ++digits;
    if (digits > at && digits + 1 < line.size() && line[digits] == '.' && line[digits + 1] == ' ') {
        text_at = digits + 2;
        return "ol";
    }
    return "";
}

std::string blocks_html(const Lines& lines, const std::string& folder);

// Renders lines[i..] while they belong to one list; returns the HTML, leaves i after it.
std::string list_html(const Lines& lines, std::size_t& i, const std::string& folder)
{
    std::size_t text_at = 0;
    const std::string kind = list_item(lines[i], text_at);
    const std::size_t indent = indent_of(lines[i]);
    std::string html = "<" + kind + ">\n";
    while (i < lines.size()) {
        std::size_t at = 0;
        if (blank(lines[i]) || indent_of(lines[i]) != indent || list_item(lines[i], at) != kind) break;
        // The item: its first line, then the lines indented past the marker (nested lists, more
        // paragraphs) and lazy continuation lines, up to a blank line followed by less indent.
        Lines item = {lines[i].substr(at)};
        for (++i; i < lines.size(); ++i) {
            std::size_t unused = 0;
            if (blank(lines[i])) {
                if (i + 1 < lines.size() && !blank(lines[i + 1]) && indent_of(lines[i + 1]) > indent) {
                    item.emplace_back();
                    continue;
                }
                break;
            }
            if (indent_of(lines[i]) <= indent && !list_item(lines[i], unused).empty()) break;
            if (indent_of(lines[i]) < at && indent_of(lines[i]) <= indent && !item.back().empty()) {  // lazy continuation
                item.push_back(lines[i].substr(indent_of(lines[i])));
                continue;
            }
            item.push_back(lines[i].size() > at ? lines[i].substr(std::min(at, indent_of(lines[i]))) : "");
        }
        std::string inner = blocks_html(item, folder);
        if (starts_with(inner, "<p>") && inner.find("<p>", 3) == std::string::npos) {  // one paragraph: no <p>
            const std::size_t end = inner.find("</p>");
            inner = inner.substr(3, end - 3) + inner.substr(end + 4);
        }
        while (!inner.empty() && inner.back() == '\n') inner.pop_back();
        html += "<li>" + inner + "</li>\n";
        while (i < lines.size() && blank(lines[i]) && i + 1 < lines.size() && indent_of(lines[i + 1]) == indent) {
            std::size_t next = 0;
            if (list_item(lines[i + 1], next) != kind) break;
            ++i;  // a blank line between items of the same list
        }
    }
    return html + "</" + kind + ">\n";
}

// "## Title": 2; 0 for a line that is no heading (1 to 6 '#', then a space).
std::size_t heading_level(const std::string& trimmed)
{
    const std::size_t hashes = trimmed.find_first_not_of('#');
    return hashes >= 1 && hashes <= 6 && hashes < trimmed.size() && trimmed[hashes] == ' ' ? hashes : 0;
}

std::string blocks_html(const Lines& lines, const std::string& folder)
{
    static const std::regex table_rule(R"(^\s*\|?[\s:|-]*-[\s:|-]*$)");  // |---|:---:|
    std::ostringstream html;
    for (std::size_t i = 0; i < lines.size();) {
        const std::string& line = lines[i];
        const std::string trimmed = blank(line) ? "" : line.substr(indent_of(line));
        std::size_t text_at = 0;
        if (trimmed.empty()) {
            ++i;
        } else if (starts_with(trimmed, "```")) {
            html << "<pre><code>";
            for (++i; i < lines.size() && !starts_with(lines[i].substr(std::min(lines[i].size(), indent_of(line))), "```"); ++i)
                html << escape_xml(lines[i].substr(std::min(lines[i].size(), indent_of(line)))) << "\n";
            html << "</code></pre>\n";
            ++i;
        } else if (const std::size_t level = heading_level(trimmed); level > 0) {
            html << "<h" << level << ">" << inline_html(trimmed.substr(level + 1), folder) << "</h" << level << ">\n";
            ++i;
        } else if (trimmed[0] == '>') {
            Lines quote;
            for (; i < lines.size() && !blank(lines[i]) && lines[i][indent_of(lines[i])] == '>'; ++i) {
                const std::string q = lines[i].substr(indent_of(lines[i]) + 1);
                quote.push_back(starts_with(q, " ") ? q.substr(1) : q);
            }
            html << "<blockquote>\n" << blocks_html(quote, folder) << "</blockquote>\n";
        } else if (trimmed[0] == '|' && i + 1 < lines.size() && std::regex_match(lines[i + 1], table_rule)) {
            html << "<table>\n<tr>";
            for (const std::string& cell : table_cells(line)) html << "<th>" << inline_html(cell, folder) << "</th>";
            html << "</tr>\n";
            for (i += 2; i < lines.size() && !blank(lines[i]) && lines[i][indent_of(lines[i])] == '|'; ++i) {
                html << "<tr>";
                for (const std::string& cell : table_cells(lines[i])) html << "<td>" << inline_html(cell, folder) << "</td>";
                html << "</tr>\n";
            }
            html << "</table>\n";
        } else if (!list_item(line, text_at).empty()) {
            html << list_html(lines, i, folder);
        } else {
            std::string paragraph;
            for (; i < lines.size() && !blank(lines[i]); ++i) {
                const std::string t = lines[i].substr(indent_of(lines[i]));
                std::size_t unused = 0;
                if (!paragraph.empty() && (starts_with(t, "```") || heading_level(t) > 0 || t[0] == '>' || !list_item(lines[i], unused).empty())) break;
                paragraph += (paragraph.empty() ? "" : "\n") + t;
            }
            html << "<p>" << inline_html(paragraph, folder) << "</p>\n";
        }
    }
    return html.str();
}

}  // namespace

std::string lesson_text_html(const std::string& markdown, const std::string& folder)
{
    Lines lines;
    std::stringstream in(markdown);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    return blocks_html(lines, folder);
}

}  // namespace tinyamp::lesson
