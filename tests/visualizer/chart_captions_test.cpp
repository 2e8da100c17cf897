// The captions of a histogram's limit lines: beside their lines, inside the chart, each on the
// first row where it covers no other caption (the rows sit above the bars, so none covers a bar).
#include <doctest/doctest.h>

#include <vector>

#include "visualizer/model/chart_captions.h"

using tinyamp::viz::Caption;
using tinyamp::viz::CaptionPlace;
using tinyamp::viz::caption_rows;
using tinyamp::viz::place_captions;

TEST_CASE("place_captions: each caption beside its line, on the side asked, 3 px from it")
{
    const std::vector<CaptionPlace> places = place_captions({{100, 40, false}, {250, 30, true}}, 300);
    REQUIRE(places.size() == 2);
    CHECK(places[0].x == doctest::Approx(103));  // right of its line
    CHECK(places[1].x == doctest::Approx(217));  // left of its line: 250 - 3 - 30
    CHECK(places[0].row == 0);
    CHECK(places[1].row == 0);  // far apart: one row holds both
    CHECK(caption_rows(places) == 1);
}

TEST_CASE("place_captions: captions that would overlap go on rows below, each on the first free one")
{
    // The inspector's f16 limits on a 300 px chart of 44 binades: 2^-24 and 2^-14 are 68 px apart,
    // and "f16: 0 below" is wider than that.
    const float bin = 300.0f / 44;
    const std::vector<Caption> captions = {{2 * bin, 85, false}, {12 * bin, 70, false}, {41.98f * bin, 50, true}, {14 * bin, 20, false}};
    const std::vector<CaptionPlace> places = place_captions(captions, 300);
    CHECK(places[0].row == 0);
    CHECK(places[1].row == 1);  // it would cover "f16: 0 below"
    CHECK(places[2].row == 0);  // "f16 max", at the right, clear of the first
    CHECK(places[3].row == 2);  // it would cover one caption on row 0 and one on row 1
    CHECK(caption_rows(places) == 3);
    // No two captions on a row share a pixel (nor the 6 px gap).
    for (std::size_t i = 0; i < places.size(); ++i)
        for (std::size_t j = i + 1; j < places.size(); ++j)
            if (places[i].row == places[j].row)
                CHECK((places[i].x + captions[i].width + 6 <= places[j].x || places[j].x + captions[j].width + 6 <= places[i].x));
}

TEST_CASE("place_captions: a caption that would stick out of the chart is moved inside it")
{
    const std::vector<CaptionPlace> places = place_captions({{2, 50, true}, {295, 40, false}}, 300);
    CHECK(places[0].x == 0);
    CHECK(places[1].x == doctest::Approx(260));
    CHECK(caption_rows({}) == 0);
}
