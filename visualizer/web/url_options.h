#pragma once
// The web page's options, read from its address as tinyamp-viz reads its command line:
//   index.html?scenario=mlp-f16-scaler&select=backward:linear&position=backward&steps=3
// names the same options (--scenario, --select, --position, --steps, --tab, --zoom, --ui-scale).
// Pure C++, no browser: tests/visualizer/url_options_test.cpp checks it natively.
#include <string>

#include "visualizer/app/app_options.h"

namespace tinyamp::viz {

struct PageOptions {
    AppOptions app;
    float ui_scale = 1.0f;
};

/// Reads `query` (location.search: "?a=1&b=x%20y", or "" for none). Throws Error(value) naming an
/// unknown option or a bad value, and listing the options it knows.
PageOptions parse_page_options(const std::string& query);

}  // namespace tinyamp::viz
