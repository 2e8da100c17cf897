// The web page's address read as tinyamp-viz's options (visualizer/web/url_options.h): what a
// class's link such as index.html?scenario=mlp-f16-scaler&select=backward%3Alinear opens on.
#include <doctest/doctest.h>

#include <string>

#include "tests/support/expect_error.h"
#include "visualizer/web/url_options.h"

using namespace tinyamp;
using viz::parse_page_options;

TEST_CASE("an address without options opens the native app's defaults")
{
    for (const std::string query : {"", "?", "?&"}) {
        const viz::PageOptions page = parse_page_options(query);
        CHECK(page.app.scenario == viz::AppOptions{}.scenario);
        CHECK(page.app.position == viz::AppOptions{}.position);  // "": the scenario's opening
        CHECK(page.app.select == viz::AppOptions{}.select);
        CHECK(page.app.steps == 0);
        CHECK_FALSE(page.app.zoom.has_value());
        CHECK(page.ui_scale == 1.0f);
    }
}

TEST_CASE("each option of the address sets what the command-line option of the same name sets")
{
    const viz::PageOptions page =
        parse_page_options("?scenario=mlp-f16-scaler&select=backward%3Alinear&position=backward&steps=3&tab=policy&zoom=1.5&ui-scale=2");
    CHECK(page.app.scenario == "mlp-f16-scaler");
    CHECK(page.app.select == "backward:linear");  // %3A decoded
    CHECK(page.app.position == "backward");
    CHECK(page.app.steps == 3);
    CHECK(page.app.tab == "policy");
    REQUIRE(page.app.zoom.has_value());
    CHECK(*page.app.zoom == 1.5);
    CHECK(page.ui_scale == 2.0f);
    CHECK(parse_page_options("?select=a+b").app.select == "a b");  // '+' is a space in a query
    CHECK(parse_page_options("?select=100%").app.select == "100%");  // a lone % is kept as it is
}

TEST_CASE("a wrong option of the address is refused with what was wrong and what is allowed")
{
    CHECK(test::error_message([] { parse_page_options("?scenaro=mlp-bf16"); }, ErrorKind::value).find("unknown option 'scenaro'") !=
          std::string::npos);
    CHECK(test::error_message([] { parse_page_options("?scenaro=x"); }, ErrorKind::value).find("scenario, select, position") != std::string::npos);
    CHECK(test::error_message([] { parse_page_options("?steps=two"); }, ErrorKind::value).find("steps=two is not a number") != std::string::npos);
    CHECK(test::error_message([] { parse_page_options("?steps=2.5"); }, ErrorKind::value).find("whole number") != std::string::npos);
    CHECK(test::error_message([] { parse_page_options("?steps=-1"); }, ErrorKind::value).find("whole number") != std::string::npos);
    CHECK(test::error_message([] { parse_page_options("?zoom=0"); }, ErrorKind::value).find("positive") != std::string::npos);
    CHECK(test::error_message([] { parse_page_options("?ui-scale=5"); }, ErrorKind::value).find("0.75 to 3") != std::string::npos);
}
