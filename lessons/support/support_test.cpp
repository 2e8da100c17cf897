// Tests of the lessons' own machinery: the SVG charts, the result files behind the index page,
// the Lesson's claim bookkeeping, the model zoo and the trace queries.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lessons/support/index_page.h"
#include "lessons/support/lesson.h"
#include "lessons/support/lesson_text_html.h"
#include "lessons/support/models.h"
#include "training/svg_plot.h"
#include "lessons/support/trace_queries.h"

using namespace tinyamp::lesson;
namespace fs = std::filesystem;

namespace {

int count(const std::string& text, const std::string& what)
{
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

fs::path scratch_folder(const std::string& name)
{
    const fs::path folder = fs::temp_directory_path() / ("tinyamp_lesson_support_" + name);
    fs::remove_all(folder);
    return folder;
}

}  // namespace

TEST_CASE("make_histogram counts each value once and clamps the ones outside")
{
    const Histogram h = make_histogram({-5.0, 0.1, 0.2, 0.9, 1.5, 7.0}, 0.0, 2.0, 4);
    REQUIRE(h.edges.size() == 5);
    CHECK(h.edges[1] == doctest::Approx(0.5));
    CHECK(h.counts == std::vector<double>{3, 1, 0, 2});  // -5 joins the first bin, 7 the last
    CHECK_THROWS_AS(make_histogram({1.0}, 1.0, 1.0, 4), std::invalid_argument);
}

TEST_CASE("a line plot draws one polyline per series and escapes its labels")
{
    LinePlot plot{"loss <f16>", "step", "loss", false, {{"f32", {0, 1, 2}, {3, 2, 1}, "", false}, {"bf16", {0, 1, 2}, {3, 2.5, 1.5}, "", true}}, {}, {}};
    const std::string svg = render_svg(plot);
    CHECK(svg.rfind("<svg", 0) == 0);
    CHECK(count(svg, "<polyline") == 2);
    CHECK(count(svg, "<circle") == 3);
    CHECK(svg.find("loss &lt;f16&gt;") != std::string::npos);
    plot.series[0].y.pop_back();
    CHECK_THROWS_WITH_AS(render_svg(plot), doctest::Contains("3 x values but 2 y values"), std::invalid_argument);
    CHECK_THROWS_AS(render_svg(LinePlot{}), std::invalid_argument);
}

TEST_CASE("a log plot leaves out the points it cannot draw and keeps its marks")
{
    LinePlot plot{"scale", "step", "loss scale", true, {{"scale", {0, 1, 2}, {65536, 0, 32768}, "", true}}, {}, {{65504, "f16 max", "#c00"}}};
    const std::string svg = render_svg(plot);
    CHECK(count(svg, "<circle") == 2);
    CHECK(svg.find("f16 max") != std::string::npos);
}

TEST_CASE("a histogram draws a bar per non-empty bin and its marks")
{
    Histogram h = make_histogram({1, 1, 3}, 0, 4, 4);
    h.x_marks.push_back({2.0, "f16 min", "#c00"});
    const std::string svg = render_svg(h);
    CHECK(count(svg, "<rect x=") == 2 + 1);  // two bars, plus the frame
    CHECK(svg.find("f16 min") != std::string::npos);
    h.counts.pop_back();
    CHECK_THROWS_AS(render_svg(h), std::invalid_argument);
}

TEST_CASE("a lesson counts its claims and lists what it wrote")
{
    const fs::path folder = scratch_folder("claims");
    Lesson L(LessonInfo{7, "demo", "Demo", "counting", nullptr}, folder);
    CHECK(L.check(true, "a true claim"));
    CHECK_FALSE(L.check(false, "a false claim"));
    L.write_plot("p", LinePlot{"t", "x", "y", false, {{"s", {0, 1}, {0, 1}, "", false}}, {}, {}}, "a plot");
    CHECK(L.checks() == 2);
    CHECK(L.failures() == 1);
    REQUIRE(L.pictures().size() == 1);
    CHECK(fs::exists(folder / "p.svg"));
    fs::remove_all(folder);
}

TEST_CASE("results saved by one run are read back for the index page")
{
    const fs::path out = scratch_folder("index");
    LessonResult r;
    r.number = 3;
    r.folder = "03_demo";
    r.title = "Demo <3>";
    r.teaches = "tabs\tand newlines\nare flattened";
    r.status = "failed";
    r.checks = 5;
    r.failures = 2;
    r.key_results = {"one", "two"};
    r.pictures = {{"g.svg", "the graph"}};
    fs::create_directories(out / r.folder);
    save_result(r, out);
    const std::vector<LessonResult> back = load_results(out);
    REQUIRE(back.size() == 1);
    CHECK(back[0].number == 3);
    CHECK(back[0].teaches == "tabs and newlines are flattened");
    CHECK(back[0].status == "failed");
    CHECK(back[0].failures == 2);
    CHECK(back[0].key_results == std::vector<std::string>{"one", "two"});
    REQUIRE(back[0].pictures.size() == 1);
    CHECK(back[0].pictures[0].caption == "the graph");
    std::ifstream in(write_index(out));
    std::stringstream page;
    page << in.rdbuf();
    CHECK(page.str().find("Demo &lt;3&gt;") != std::string::npos);
    CHECK(page.str().find("03_demo/g.svg") != std::string::npos);
    CHECK(page.str().find("3/5 claims held") != std::string::npos);
    fs::remove_all(out);
}

TEST_CASE("wrap breaks lines at spaces before the width and keeps the text's own breaks")
{
    CHECK(wrap("aaa bbb ccc", 7) == "aaa bbb\nccc");
    CHECK(wrap("aaa bbb ccc", 6) == "aaa\nbbb\nccc");
    CHECK(wrap("one\ntwo three", 9) == "one\ntwo three");
    CHECK(wrap("  spaced   out  ", 80) == "spaced out");
    // A word longer than the width stands alone on its line, unbroken.
    CHECK(wrap("a verylongword b", 4) == "a\nverylongword\nb");
    const std::string long_text(300, 'x');
    CHECK(wrap("start " + long_text + " end").find(long_text) != std::string::npos);
}

TEST_CASE("the machine a lesson ran on is saved with its result and named on the index page when it differs")
{
    const fs::path out = scratch_folder("machine");
    const Machine here = this_machine();
    CHECK_FALSE(here.cpu.empty());
    CHECK_FALSE(here.features.empty());
    CHECK(here.tiers.find("f32 ") == 0);
    CHECK(here.tiers.find(", bf16 ") != std::string::npos);
    CHECK((here.bf16.find("faster") != std::string::npos));

    LessonResult same, other;
    same.number = 1;
    same.folder = "01_same";
    same.status = other.status = "passed";
    same.machine = here;
    other.number = 2;
    other.folder = "02_other";
    other.machine = here;
    other.machine.cpu = "Another CPU";
    other.machine.tinyamp_cpu = "portable";
    for (const LessonResult* r : {&same, &other}) {
        fs::create_directories(out / r->folder);
        save_result(*r, out);
    }
    const std::vector<LessonResult> back = load_results(out);
    REQUIRE(back.size() == 2);
    CHECK(back[0].machine == here);
    CHECK(back[1].machine == other.machine);

    std::ifstream in(write_index(out));
    std::stringstream page;
    page << in.rdbuf();
    // The page names this machine once at the top, and lists a machine only for the lesson that ran elsewhere.
    CHECK(count(page.str(), "<ul class=\"machine\">") == 2);
    CHECK(page.str().find("Another CPU") != std::string::npos);
    CHECK(page.str().find("Another CPU") > page.str().find("id=\"02_other\""));
    CHECK(page.str().find("capped by TINYAMP_CPU=portable") != std::string::npos);
    fs::remove_all(out);
}

TEST_CASE("the index page shows the visualizer's screenshots only when the walkthrough rendered them")
{
    const fs::path out = scratch_folder("index_viz");
    fs::create_directories(out);
    auto page_text = [&] {
        std::ifstream in(write_index(out));
        std::stringstream page;
        page << in.rdbuf();
        return page.str();
    };
    CHECK(page_text().find("tinyamp-viz") == std::string::npos);
    fs::create_directories(out / "visualizer");
    std::ofstream(out / "visualizer" / "viz_b.png") << "png";
    std::ofstream(out / "visualizer" / "viz_a.png") << "png";
    std::ofstream(out / "visualizer" / "notes.txt") << "not a picture";
    const std::string page = page_text();
    CHECK(page.find("See it live: tinyamp-viz") != std::string::npos);
    CHECK(count(page, "<img src=\"visualizer/") == 2);
    CHECK(page.find("visualizer/viz_a.png") < page.find("visualizer/viz_b.png"));  // in name order
    CHECK(page.find("notes.txt") == std::string::npos);
    fs::remove_all(out);
}

TEST_CASE("a lesson's text becomes HTML: headings, tables, lists, code, quotes and links as the tour shows them")
{
    const std::string markdown =
        "# Lesson 11 — Gradient underflow\n"
        "\n"
        "**Seed concept:** f16 has no number below 2⁻²⁴ and `x < 2^-25` becomes 0;\n"
        "see *lesson 12*, [loss scaling](../12_loss_scaling_by_hand/README.md) and [the docs](../../docs/training.md).\n"
        "\n"
        "| epoch | largest \\|g\\| | `a|b` |\n"
        "|---|---|---|\n"
        "| 1 | 0.034 | **4.49 %** |\n"
        "\n"
        "- first item,\n"
        "  continued\n"
        "  - nested item\n"
        "- second item\n"
        "\n"
        "1. one\n"
        "2. two\n"
        "\n"
        "```cpp\n"
        "if (a < b && c) {}\n"
        "```\n"
        "\n"
        "> **Status.** Ran on a GPU.\n"
        "> All claims held.\n";
    const std::string html = lesson_text_html(markdown, "11_gradient_underflow");
    CHECK(html.find("<h1>Lesson 11 — Gradient underflow</h1>") != std::string::npos);
    CHECK(html.find("<p><b>Seed concept:</b> f16 has no number below 2⁻²⁴ and <code>x &lt; 2^-25</code> becomes 0;") != std::string::npos);
    CHECK(html.find("<i>lesson 12</i>") != std::string::npos);
    CHECK(html.find("<a href=\"#12_loss_scaling_by_hand\">loss scaling</a>") != std::string::npos);  // a jump in the tour
    CHECK(html.find("the docs (<code>docs/training.md</code>)") != std::string::npos);  // a path, not a broken link
    CHECK(html.find("<tr><th>epoch</th><th>largest |g|</th><th><code>a|b</code></th></tr>") != std::string::npos);
    CHECK(html.find("<tr><td>1</td><td>0.034</td><td><b>4.49 %</b></td></tr>") != std::string::npos);
    CHECK(html.find("<ul>\n<li>first item,\ncontinued\n<ul>\n<li>nested item</li>\n</ul></li>\n<li>second item</li>\n</ul>") != std::string::npos);
    CHECK(html.find("<ol>\n<li>one</li>\n<li>two</li>\n</ol>") != std::string::npos);
    CHECK(html.find("<pre><code>if (a &lt; b &amp;&amp; c) {}\n</code></pre>") != std::string::npos);
    CHECK(html.find("<blockquote>\n<p><b>Status.</b> Ran on a GPU.\nAll claims held.</p>\n</blockquote>") != std::string::npos);
    CHECK(count(html, "**") == 0);
    CHECK(count(html, "|---") == 0);
    // "#60939" at a line's start is an issue number, not a heading: the paragraph goes on.
    CHECK(lesson_text_html("PyTorch issues #40497 and\n#60939. The fix.\n", "20_gpt_precision") ==
          "<p>PyTorch issues #40497 and\n#60939. The fix.</p>\n");
}

TEST_CASE("every lesson's text renders without Markdown left over")
{
    int lessons = 0;
    for (const fs::directory_entry& entry : fs::directory_iterator(TINYAMP_LESSONS_SOURCE_DIR)) {
        const fs::path readme = entry.path() / "README.md";
        if (!entry.is_directory() || !fs::exists(readme) || !std::isdigit(static_cast<unsigned char>(entry.path().filename().string()[0]))) continue;
        ++lessons;
        std::ifstream in(readme);
        std::stringstream text;
        text << in.rdbuf();
        const std::string html = lesson_text_html(text.str(), entry.path().filename().string());
        INFO(readme.string());
        CHECK(count(html, "**") == 0);   // bold closed
        CHECK(count(html, "```") == 0);  // code blocks closed
        CHECK(count(html, "|---") == 0);  // tables recognised
        CHECK(count(html, "](") == 0);    // links resolved
        CHECK(count(html, "<h1>") == 1);
    }
    CHECK(lessons == 21);
}

TEST_CASE("an Mlp draws its layers in order, names them, and runs linear -> relu -> linear")
{
    tinyamp::Generator gen(0);
    const Mlp net({3, 5, 2}, gen, {.weight_std = {0.5, 0.5}, .bias_std = {0.1, 0}});
    REQUIRE(net.layers() == 2);
    CHECK(net.weight(1).shape() == tinyamp::Shape{5, 3});
    CHECK(net.bias(2).shape() == tinyamp::Shape{2});
    CHECK(net.weight(2).name() == "w2");
    CHECK(net.weight(1).requires_grad());
    CHECK(net.bias(2).to_vector() == std::vector<double>(2, 0.0));  // bias_std 0: zeros
    CHECK_THROWS_AS(net.weight(3), std::out_of_range);

    // The same draws by hand give the same weights, and the forward is linear -> relu -> linear.
    tinyamp::Generator again(0);
    const tinyamp::Tensor w1 = tinyamp::mul(tinyamp::randn({5, 3}, tinyamp::f32, again), 0.5);
    const tinyamp::Tensor b1 = tinyamp::mul(tinyamp::randn({5}, tinyamp::f32, again), 0.1);
    const tinyamp::Tensor w2 = tinyamp::mul(tinyamp::randn({2, 5}, tinyamp::f32, again), 0.5);
    CHECK(net.weight(1).to_vector() == w1.to_vector());
    CHECK(net.weight(2).to_vector() == w2.to_vector());
    const tinyamp::Tensor x = tinyamp::randn({4, 3}, tinyamp::f32, again);
    const tinyamp::Tensor expected = tinyamp::linear(tinyamp::relu(tinyamp::linear(x, w1, b1)), w2, tinyamp::zeros({2}));
    CHECK(net(x).to_vector() == expected.to_vector());

    const Mlp wide({2, 4, 4, 3}, gen, {.dtype = tinyamp::f64, .requires_grad = false, .named = false});
    CHECK(wide.params().size() == 6);
    CHECK(wide.weight(3).dtype() == tinyamp::f64);
    CHECK(!wide.weight(3).requires_grad());
    CHECK(wide.weight(1).name().empty());
    CHECK_THROWS_AS(Mlp({4}, gen), std::invalid_argument);
    CHECK_THROWS_AS(Mlp({4, 2}, gen, {.weight_std = {1, 1}}), std::invalid_argument);
}

TEST_CASE("an Mlp's copy is a new set of leaves: a step on it leaves the original alone")
{
    tinyamp::Generator gen(1);
    const Mlp net({2, 3, 1}, gen, {.requires_grad = false});
    const Mlp copy = net.copy_to(tinyamp::Device::cpu());
    const std::vector<double> before = net.snapshot();
    CHECK(copy.snapshot() == before);
    CHECK(before.size() == 3 * 2 + 3 + 1 * 3 + 1);
    CHECK(copy.weight(1).requires_grad());
    CHECK(!copy.weight(1).shares_storage_with(net.weight(1)));
    tinyamp::sum(copy(tinyamp::ones({1, 2}))).backward();
    tinyamp::optim::SGD opt(copy.params(), {.lr = 0.5});
    opt.step();
    CHECK(copy.snapshot() != before);
    CHECK(net.snapshot() == before);
}

namespace {

// A linear layer and a loss under bf16 autocast, with backward outside the region.
tinyamp::trace::Trace autocast_step_trace()
{
    using namespace tinyamp;
    const Tensor x = ones({2, 3}).set_name("x");
    const Tensor w = ones({4, 3}).requires_grad_().set_name("w");
    trace::Trace t;
    trace::TraceRecorder recorder(t);
    Tensor loss;
    {
        amp::autocast region("cpu");
        const Tensor h = linear(x, w);
        linear(x, w);  // w again: a cache hit
        loss = cross_entropy(h, tensor({0, 1}, {2}, i64));
    }
    loss.backward();
    return t;
}

}  // namespace

TEST_CASE("the trace queries pick the forward ops, the casts and the backward events")
{
    using namespace tinyamp;
    const trace::Trace t = autocast_step_trace();
    const Events ops = forward_ops(t);
    REQUIRE(ops.size() == 3);
    CHECK(ops[0]->op == "linear");
    CHECK(ops[2]->op == "cross_entropy");
    CHECK(output_dtype(*ops[0]) == bf16);
    CHECK(output_dtype(*ops[2]) == f32);
    CHECK(first_event(ops, "linear", 1) == ops[1]);
    CHECK(first_event(ops, "linear", 2) == nullptr);
    CHECK(last_event(ops, "linear") == ops[1]);
    CHECK(last_event(ops, "relu") == nullptr);

    // x twice (not cached), w stored then hit, the logits back to f32 for the loss.
    const Events all_casts = casts(t);
    CHECK(all_casts.size() == 5);
    const Events w_casts = casts_of(t, "w");
    REQUIRE(w_casts.size() == 2);
    CHECK(w_casts[0]->cache == trace::CacheEvent::stored);
    CHECK(w_casts[1]->cache == trace::CacheEvent::hit);
    CHECK(count_cache(all_casts, trace::CacheEvent::hit) == 1);
    CHECK(count_cache(all_casts, trace::CacheEvent::none) == 3);
    CHECK(casts_of(t, "nobody").empty());

    const Events backward = backward_events(t);
    CHECK(!backward.empty());
    for (const trace::Event* e : backward) CHECK(e->phase == trace::Phase::backward);
    CHECK(events_named(backward, "cross_entropy").size() == 1);
    CHECK(gradient_dtypes(t, "linear") == std::set<DType>{bf16});
    CHECK(gradient_dtypes(t, "cross_entropy") == std::set<DType>{f32});
    CHECK(backward_casts(t, f32, bf16).size() == 1);  // the logits' cast, backwards
    CHECK(backward_casts(t, bf16, f32).size() == 1);  // w's cast, backwards
    CHECK(gradient_dtypes(t, "nothing").empty());

    trace::Event empty;
    CHECK_THROWS_AS(output_dtype(empty), std::invalid_argument);
}
