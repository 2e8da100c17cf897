#include "visualizer/web/url_options.h"

#include <cstdint>
#include <cstdlib>

#include "tinyamp/support/error.h"

namespace tinyamp::viz {
namespace {

constexpr const char* kKnown = "scenario, select, position, steps, tab, zoom, ui-scale";

int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The percent-decoding of a query's part ("%3A" -> ":", "+" -> " ").
std::string decode(const std::string& text)
{
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '+') {
            out += ' ';
        } else if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 && hex_digit(text[i + 2]) >= 0) {
            out += char(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

double number(const std::string& key, const std::string& value)
{
    char* end = nullptr;
    const double x = std::strtod(value.c_str(), &end);
    TINYAMP_CHECK(!value.empty() && *end == '\0', value, "the page's option ", key, "=", value, " is not a number");
    return x;
}

}  // namespace

PageOptions parse_page_options(const std::string& query)
{
    PageOptions page;
    std::string rest = !query.empty() && query[0] == '?' ? query.substr(1) : query;
    while (!rest.empty()) {
        const std::size_t amp = rest.find('&');
        const std::string pair = rest.substr(0, amp);
        rest = amp == std::string::npos ? "" : rest.substr(amp + 1);
        if (pair.empty()) continue;
        const std::size_t eq = pair.find('=');
        const std::string key = decode(pair.substr(0, eq));
        const std::string value = eq == std::string::npos ? "" : decode(pair.substr(eq + 1));
        if (key == "scenario") {
            page.app.scenario = value;
        } else if (key == "select") {
            page.app.select = value;
        } else if (key == "position") {
            page.app.position = value;
        } else if (key == "tab") {
            page.app.tab = value;
        } else if (key == "steps") {
            const double steps = number(key, value);
            TINYAMP_CHECK(steps >= 0 && steps <= 1000 && steps == double(std::int64_t(steps)), value, "the page's option steps=", value,
                          " is not a whole number from 0 to 1000");
            page.app.steps = std::int64_t(steps);
        } else if (key == "zoom") {
            const double zoom = number(key, value);
            TINYAMP_CHECK(zoom > 0, value, "the page's option zoom=", value, " is not a positive factor");
            page.app.zoom = zoom;
        } else if (key == "ui-scale") {
            const double scale = number(key, value);
            TINYAMP_CHECK(valid_ui_scale(scale), value, "the page's option ui-scale=", value, " is not from ", kMinUiScale, " to ", kMaxUiScale,
                          " (2 for a HiDPI screen)");
            page.ui_scale = float(scale);
        } else {
            TINYAMP_FAIL(value, "the page's address names an unknown option '", key, "' (the options are ", kKnown, ")");
        }
    }
    return page;
}

}  // namespace tinyamp::viz
