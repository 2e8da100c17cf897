// The side panels follow the window: the graph keeps most of a small window, and the panels grow
// with a large one and with the UI scale.
#include <doctest/doctest.h>

#include <initializer_list>

#include "visualizer/model/panel_widths.h"

using tinyamp::viz::panel_widths;
using tinyamp::viz::PanelWidths;

TEST_CASE("panel_widths: the graph keeps at least half the window, from 900 to 2560 pixels, at scales 0.75 to 3")
{
    for (const float width : {320.0f, 900.0f, 1280.0f, 1920.0f, 2560.0f})
        for (const float scale : {0.75f, 1.0f, 2.0f, 3.0f}) {
            const PanelWidths w = panel_widths(width, scale);
            CHECK(w.left + w.right <= 0.5f * width + 1e-3f);
            CHECK(w.left > 0);
            CHECK(w.right > 0);
        }
}

TEST_CASE("panel_widths: shares of the window within their least and most widths, which grow with the scale")
{
    const PanelWidths at_1280 = panel_widths(1280, 1);
    CHECK(at_1280.left == doctest::Approx(0.24 * 1280));
    CHECK(at_1280.right == doctest::Approx(0.25 * 1280));
    const PanelWidths at_900 = panel_widths(900, 1);  // 24% is 216; the right a quarter, 225
    CHECK(at_900.left == doctest::Approx(216));
    CHECK(900 - at_900.left - at_900.right > 0.5 * 900);
    const PanelWidths hidpi = panel_widths(2560, 2);  // a quarter of 2560 is 640, within 440..1120
    CHECK(hidpi.left == doctest::Approx(0.24 * 2560));
    CHECK(hidpi.right == doctest::Approx(640));
    CHECK(panel_widths(2560, 1).left == doctest::Approx(480));  // at scale 1 the most is 480
    CHECK(panel_widths(1280, 2).left + panel_widths(1280, 2).right == doctest::Approx(640));  // shrunk to half
}
