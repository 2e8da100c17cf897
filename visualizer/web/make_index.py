#!/usr/bin/env python3
"""Writes the web page's front page: one link per scenario of tinyamp-viz (Scenario::names()),
each opening viz.html on it, with what it shows and the lesson that explains it, and one per
FP8/MX scenario's inspector (forward and backward); and, given the
tour (tinyamp-tour's output: each lesson's results and pictures), links it and adds to each of
its lessons that a scenario shows a link that opens the scenario live.

    make_index.py OUT.html [--tour TOUR_DIR]     TOUR_DIR/index.html is rewritten in place

The browser test (tests/web/browser_check.py) checks that every scenario the native
`tinyamp-viz --list-scenarios` names has its link here, so a new scenario cannot be left out.
"""
import html
import pathlib
import re
import sys

# name, what it shows, the lesson that explains it
SCENARIOS = [
    ("mlp-bf16", "An MLP on the digits under bf16 autocast: the casts autocast inserts, the cast cache's hits.", "05, 08"),
    ("mlp-f16-scaler", "f16 autocast with a GradScaler: scaled gradients, an overflow, a skipped step, the scale halving.", "12, 13"),
    ("mlp-f16", "f16 autocast without a scaler: gradients that underflow to zero.", "11"),
    ("mlp-f32", "The same MLP in f32, no autocast: the baseline the others are compared with.", ""),
    ("cnn-bf16", "A small CNN on the digits under bf16 autocast.", ""),
    ("deep-bf16", "A deeper MLP under bf16 autocast, its modules folded into boxes you can open.", ""),
    ("mlp-fp8-delayed", "FP8 with delayed scaling: amax histories and per-tensor scales.", "18"),
    ("mlp-mxfp8", "MXFP8: one shared scale per block of 32 values.", "19"),
    ("gpt", "A tiny GPT under bf16 autocast with the fused attention.", "20"),
    ("gpt-composite", "The same GPT with attention composed of matmul and softmax.", "20"),
    ("ddp-bf16", "Rank 0 of a 2-process DistributedDataParallel step, recorded under MPI: its f32 gradients leave the rank "
                 "as bf16, one all_reduce per bucket during backward.", ""),
]

# The inspector of each FP8/MX scenario's scaled casts: (scenario, the address's options, what it
# shows). Three steps first, so that delayed scaling's amax history has entries to show. The browser
# test opens each and finds the FP8 formats' colors in the inspector.
FP8_PAGES = [
    ("mlp-fp8-delayed", "steps=3&select=fp8_linear",
     "forward: the input and the weight cast to f8e4m3fn, each with its amax history, the scale it got and the histogram of log2|x * scale| against the format's range"),
    ("mlp-fp8-delayed", "steps=3&select=backward:fp8_linear",
     "backward: the output's gradient cast to f8e5m2 (more range, less precision), with its own history and scale"),
    ("mlp-mxfp8", "steps=3&select=fp8_linear",
     "forward: MXFP8, one E8M0 scale per block of 32 values: the map of the block scales beside the histogram"),
    ("mlp-mxfp8", "steps=3&select=backward:fp8_linear",
     "backward: the gradient in MXFP8 blocks: a share of its values clamped to f8e4m3fn's max (448)"),
]


def link_tour(tour):
    """Adds "Watch it live" links under the tour's lesson headings (<h2 id="NN_topic">)."""
    index = pathlib.Path(tour) / "index.html"
    text = index.read_text(encoding="utf-8")
    by_lesson = {}
    for name, _, lessons in SCENARIOS:
        for lesson in filter(None, (n.strip() for n in lessons.split(","))):
            by_lesson.setdefault(lesson, []).append(name)

    def add_links(match):
        names = by_lesson.get(match.group(1)[:2], [])
        if not names:
            return match.group(0)
        links = ", ".join(f'<a href="../viz.html?scenario={html.escape(n)}">{html.escape(n)}</a>' for n in names)
        return match.group(0) + f'\n<p class="live"><b>Watch it live</b> in your browser: {links}</p>'

    text, count = re.subn(r'<h2 id="(\d\d_[a-z0-9_]+)">.*?</h2>', add_links, text)
    if count == 0:
        sys.exit(f"make_index: {index} has no lesson headings (<h2 id=\"NN_topic\">): is it tinyamp-tour's index page?")
    # A click on a live link opens the visualizer right there, under the heading (one at a time:
    # each runs its own training); Ctrl-click or a middle click still opens it in a tab.
    text = text.replace("</body>", LIVE_SCRIPT + "</body>", 1)
    index.write_text(text, encoding="utf-8")


LIVE_SCRIPT = """<script>
document.querySelectorAll("p.live a").forEach(function (link) {
  link.addEventListener("click", function (event) {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    document.querySelectorAll("iframe.live").forEach(function (frame) { frame.remove(); });
    const frame = document.createElement("iframe");
    frame.className = "live";
    frame.src = link.href;
    frame.style.cssText = "width: 100%; height: 800px; border: 1px solid #888;";
    link.parentElement.after(frame);
  });
});
</script>
"""


def main():
    args = sys.argv[1:]
    tour = None
    if "--tour" in args:
        i = args.index("--tour")
        tour = args[i + 1] if i + 1 < len(args) else sys.exit(__doc__)
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    if tour:
        link_tour(tour)
    tour_line = ('<p><a href="tour/index.html">The tour</a>: the twenty lessons\' results and pictures, '
                 'with a link to each scenario where its lesson shows it.</p>' if tour else "")
    rows = "\n".join(
        f'  <li><a href="viz.html?scenario={html.escape(name)}">{html.escape(name)}</a>: {html.escape(text)} '
        + (f'<span class="lesson">(lesson{"s" if "," in lesson else ""} {html.escape(lesson)})</span>' if lesson else "") + "</li>"
        for name, text, lesson in SCENARIOS)
    fp8_rows = "\n".join(
        f'  <li><a href="viz.html?scenario={html.escape(name)}&amp;{html.escape(options)}">{html.escape(name)}, '
        f'{html.escape(options.split("select=")[-1])}</a>: {html.escape(text)}</li>'
        for name, options, text in FP8_PAGES)
    page = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tinyamp in the browser</title>
<style>
  body {{ max-width: 52em; margin: 2em auto; padding: 0 1em; font: 16px/1.5 sans-serif; color: #222; }}
  .lesson {{ color: #777; }}
  code {{ background: #f3f3f3; padding: 0 .2em; }}
</style>
</head>
<body>
<h1>tinyamp: mixed precision you can watch</h1>
<p>Each link below trains a small model live in your browser, one step at a time, with tinyamp compiled to
WebAssembly, and draws its computation graph colored by dtype, forward and backward. Step it, change the
autocast dtype, turn the cast cache or the GradScaler on and off, and click any box to inspect its values.
Nothing is installed; nothing leaves your machine.</p>
{tour_line}
<ul id="scenarios">
{rows}
</ul>
<h2>FP8 and MX in the inspector</h2>
<p>Each FP8/MX scenario opened on its <code>fp8_linear</code>, whose inspector shows every scaled cast inside
it: the amax, the scale, what saturated and what flushed to zero (lessons 17-19).</p>
<ul id="fp8">
{fp8_rows}
</ul>
<p>A link can also choose the first view, as <code>tinyamp-viz</code>'s command line does:
<code>viz.html?scenario=mlp-f16-scaler&amp;steps=3&amp;select=backward:linear</code>
(<code>scenario</code>, <code>steps</code>, <code>position</code>, <code>select</code>, <code>tab</code>,
<code>zoom</code>, <code>ui-scale</code>).</p>
</body>
</html>
"""
    with open(args[0], "w", encoding="utf-8") as out:
        out.write(page)


if __name__ == "__main__":
    main()
