#!/usr/bin/env python3
"""The web page (scripts/web.sh's build-web/site) in a real browser: headless Chromium through
chromedriver, the site served on 127.0.0.1 only. Exits 1 naming each check that failed.

    browser_check.py SITE VIZ_SCREENSHOT_CHECK NATIVE_TINYAMP_VIZ [--out DIR]

Checks, in order:
  1. the front page links every scenario the native `tinyamp-viz --list-scenarios` names, and the
     tour (when the site has it) shows every lesson's text as HTML and links scenarios that exist;
  2. viz.html?scenario=mlp-bf16 draws its first frame within 3 s of the page's start, with no error;
  3. its screenshot passes the native screenshot's pixel checks (viz_screenshot_check: the dtype
     colors, the cast outline, the legend), and a screenshot of the front page fails them (the
     check that must fail, so that (3) is not a check that cannot fail);
  4. a click on "step" trains one step: the title's step counter goes from 1 to 2;
  5. a click on "dtype f16" recolors the graph: bf16's fill before, f16's after;
  6. deep-bf16 opens with folded modules: a click on "Unfold (E)" shows more nodes;
  7. deep-bf16's median frame time over 120 frames, measured and printed against its 16 ms
     budget ("within" or "OVER"), not held: software WebGL shares the CPU, so a busy machine
     makes it slower (49 ms was seen while three builds ran beside it), and speed is measured,
     not asserted, in this project's tests. A second window of 120 is measured when the first is
     over (a busy moment only makes frames slower: the better median is what the page can do);
  8. each FP8/MX inspector page of the front page (#fp8) opens on its fp8_linear after its steps,
     and the inspector draws the cast's format (f8e4m3fn red, f8e5m2 purple: its lines and
     captions); the front page's screenshot has none of either.
The figures (first frame, frame times, sizes) are printed and written to DIR/figures.json.
"""
import contextlib
import functools
import gzip
import http.server
import json
import pathlib
import statistics
import subprocess
import sys
import threading
import time
import zlib

# The lessons the tour lists: one folder each under lessons/ (NN_topic).
LESSON_COUNT = len(list((pathlib.Path(__file__).resolve().parents[2] / "lessons").glob("[0-9][0-9]_*/README.md")))

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as ChromeService
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
except ImportError:
    webdriver = None  # main() says what to install

WIDTH, HEIGHT = 1280, 800
BUDGET_MS = 16.0  # deep-bf16's frame time (issue 39)
failures = []


def check(ok, what, detail=""):
    print(("ok: " if ok else "FAILED: ") + what + (f" ({detail})" if detail else ""), flush=True)
    if not ok:
        failures.append(what)
    return ok


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm"}

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def served(site):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def browser():
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--use-angle=swiftshader",
                "--enable-unsafe-swiftshader", "--disable-gpu-sandbox", f"--window-size={WIDTH},{HEIGHT}"):
        options.add_argument(arg)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=ChromeService(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(60)
    # The page's viewport itself WIDTH x HEIGHT, as the native screenshots are (the window size
    # includes the browser's frame).
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    return driver


def viz(driver):
    return driver.execute_script("return window.tinyampViz || null")


def wait_for(driver, what, predicate, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        state = viz(driver)
        if state and state.get("error"):
            check(False, what, "the page says: " + state["error"])
            return None
        if state and predicate(state):
            return state
        time.sleep(0.05)
    check(False, what, f"not within {timeout} s; the page's state: {viz(driver)}")
    return None


def point(driver, function, name):
    text = driver.execute_script(f"return Module.ccall('{function}', 'string', ['string'], [arguments[0]])", name)
    if not text:
        return None
    x, y = (float(v) for v in text.split())
    return x, y


def click(driver, xy):
    canvas = driver.find_element(By.ID, "canvas")
    # Selenium's offsets are from the element's centre.
    width, height = canvas.size["width"], canvas.size["height"]
    ActionChains(driver).move_to_element_with_offset(canvas, int(xy[0] - width / 2), int(xy[1] - height / 2)).click().perform()


def png_rows(png):
    """The rows of a PNG as lists of RGB tuples (8-bit RGB or RGBA, not interlaced: what Chromium's
    screenshots are), decoded here so the test needs no imaging library."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, data, width, height, channels = 8, b"", 0, 0, 4
    while pos < len(png):
        length = int.from_bytes(png[pos:pos + 4], "big")
        kind, body = png[pos + 4:pos + 8], png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height = int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big")
            depth, color, interlace = body[8], body[9], body[12]
            assert depth == 8 and color in (2, 6) and interlace == 0, "an 8-bit RGB(A) PNG"
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            data += body
        pos += 12 + length
    raw = zlib.decompress(data)
    stride = width * channels
    previous, rows = bytearray(stride), []
    for row in range(height):  # undo each row's filter (PNG spec, section 9)
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 255
        elif kind == 2:
            for i in range(stride):
                line[i] = (line[i] + previous[i]) & 255
        elif kind in (3, 4):
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                up, up_left = previous[i], previous[i - channels] if i >= channels else 0
                if kind == 3:
                    line[i] = (line[i] + (left + up) // 2) & 255
                else:
                    p = left + up - up_left
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                    line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, channels)])
        previous = line
    return rows


# Fill colors of tinyamp/trace/palette.cpp.
DTYPE_FILLS = {"bf16": (0xFF, 0x7F, 0x0E), "f16": (0x00, 0x9E, 0x73)}
FP8_FILLS = {"f8e4m3fn": (0xD7, 0x2A, 0x24), "f8e5m2": (0x64, 0x17, 0x71)}


def color_counts(png, colors, from_column=0.0):
    """How many pixels of each of `colors` (name -> RGB) the screenshot has, in its columns from
    the fraction `from_column` of its width on (0.75: the inspector, the right quarter)."""
    counts = dict.fromkeys(colors, 0)
    for row in png_rows(png):
        part = row[int(len(row) * from_column):]
        for name, color in colors.items():
            counts[name] += part.count(color)
    return counts


def fill_counts(png):
    """How many pixels of the screenshot have bf16's and f16's fill: (bf16, f16)."""
    counts = color_counts(png, DTYPE_FILLS)
    return counts["bf16"], counts["f16"]


def inspector_counts(png):
    """How many pixels of each FP8 format's color the inspector (the right quarter) has."""
    return color_counts(png, FP8_FILLS, from_column=0.75)


def screenshot_checks(driver, checker, out, name):
    shot = out / f"web_{name}.png"
    driver.save_screenshot(str(shot))
    result = subprocess.run([checker, str(shot), "--scenario", name], capture_output=True, text=True)
    return shot, result


def main():
    args = sys.argv[1:]
    out = pathlib.Path("web-check")
    if "--out" in args:
        i = args.index("--out")
        out = pathlib.Path(args[i + 1])
        del args[i:i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    site, checker, native = pathlib.Path(args[0]), args[1], args[2]
    if not (site / "viz.html").exists():
        print(f"browser_check: skipped: no viz.html in {site} (scripts/web.sh builds the page)")
        return 77
    if webdriver is None:
        print("browser_check: FAILED: Selenium is missing for this Python (Debian: python3-selenium; scripts/install-deps.sh --web)")
        return 1
    out.mkdir(parents=True, exist_ok=True)
    figures = {}
    sizes = {p.name: p.stat().st_size for p in site.iterdir() if p.is_file()}
    figures["bytes"] = sum(sizes.values())
    figures["bytes_gzip"] = sum(len(gzip.compress(p.read_bytes(), 9)) for p in site.iterdir() if p.is_file())
    check(figures["bytes_gzip"] <= 10e6, "the page's transfer size (gzip) is at most 10 MB", f"{figures['bytes_gzip'] / 1e6:.2f} MB")

    names = subprocess.run([native, "--list-scenarios"], capture_output=True, text=True, check=True).stdout.split()
    with served(site) as base:
        driver = browser()
        try:
            # 1. the front page
            driver.get(base + "/index.html")
            links = {a.get_attribute("href").split("scenario=")[-1] for a in driver.find_elements(By.CSS_SELECTOR, "#scenarios a")}
            missing = [n for n in names if n not in links]
            check(not missing, "the front page links every scenario of tinyamp-viz --list-scenarios", f"missing: {missing}" if missing else f"{len(names)} scenarios")
            if (site / "tour" / "index.html").exists():
                driver.get(base + "/tour/index.html")
                texts = driver.find_elements(By.CSS_SELECTOR, "details.lesson-text")
                tables = driver.find_elements(By.CSS_SELECTOR, "details.lesson-text table")
                raw = [t.get_attribute("id") for t in texts if "**" in t.get_attribute("textContent") or "|---" in t.get_attribute("textContent")]
                check(len(texts) == LESSON_COUNT and len(tables) > 0 and not raw, "the tour shows each lesson's text as HTML (tables, no Markdown left)",
                      f"{len(texts)} texts, {len(tables)} tables" + (f"; Markdown left in {raw}" if raw else ""))
                live = [a.get_attribute("href").split("scenario=")[-1] for a in driver.find_elements(By.CSS_SELECTOR, "p.live a")]
                check(bool(live) and all(n in names for n in live), "the tour's lessons link live scenarios that exist",
                      f"{len(live)} links" if live else "none")
                if live:
                    # A click opens the visualizer in the lesson's page, under its heading.
                    driver.find_element(By.CSS_SELECTOR, "p.live a").click()
                    frames = 0
                    for _ in range(300):
                        frames = driver.execute_script(
                            "const f = document.querySelector('iframe.live'); const v = f && f.contentWindow.tinyampViz;"
                            " return v ? v.frames : 0")
                        if frames >= 3:
                            break
                        time.sleep(0.1)
                    check(frames >= 3, "a click on a lesson's live link runs the visualizer in the tour's page", f"{frames} frames drawn")
                driver.get(base + "/index.html")
            fp8_pages = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "#fp8 a")]
            index_shot = out / "web_index.png"
            driver.save_screenshot(str(index_shot))
            index_fp8 = inspector_counts(index_shot.read_bytes())

            # 2. first frame
            driver.get(base + "/viz.html?scenario=mlp-bf16")
            state = wait_for(driver, "mlp-bf16 draws frames", lambda s: s.get("frames", 0) >= 3)
            if state:
                figures["first_frame_ms"] = state["firstFrameMs"]
                check(state["firstFrameMs"] <= 3000, "the first frame is drawn within 3 s of the page's start", f"{state['firstFrameMs']:.0f} ms")

                # 3. the pixel checks, and the one that must fail
                shot, result = screenshot_checks(driver, checker, out, "mlp-bf16")
                check(result.returncode == 0, "the browser's screenshot passes the native pixel checks", (result.stdout + result.stderr).strip().splitlines()[-1] if (result.stdout + result.stderr).strip() else "")
                wrong = subprocess.run([checker, str(index_shot), "--scenario", "mlp-bf16"], capture_output=True, text=True)
                check(wrong.returncode != 0, "the pixel checks fail on the front page's screenshot (they can fail)")

                # 4. a step
                before = viz(driver)["title"]
                step = point(driver, "tinyamp_item_center", "step")
                if check(step is not None, "the step button is drawn"):
                    click(driver, step)
                    after = wait_for(driver, "a click on step trains one step", lambda s: "step 2" in s["title"], timeout=30)
                    if after:
                        check("step 1" in before and "step 2" in after["title"], "the title's step counter goes from 1 to 2", f"'{before}' -> '{after['title']}'")

                # 5. recolor: bf16 -> f16
                f16 = point(driver, "tinyamp_item_center", "dtype f16")
                if check(f16 is not None, "the f16 choice is drawn"):
                    before = fill_counts(driver.get_screenshot_as_png())
                    click(driver, f16)
                    wait_for(driver, "the scenario restarts in f16", lambda s: "f16" in s["title"], timeout=30)
                    time.sleep(0.3)
                    after = fill_counts(driver.get_screenshot_as_png())
                    check(before[0] > 10 * max(before[1], 1) and after[1] > 10 * max(after[0], 1),
                          "the graph is recolored from bf16's fill to f16's when autocast's dtype changes to f16",
                          f"pixels of bf16's / f16's fill: {before[0]} / {before[1]} -> {after[0]} / {after[1]}")
                    driver.save_screenshot(str(out / "web_mlp-f16.png"))

            # 6, 7. deep-bf16: unfold, frame times
            driver.get(base + "/viz.html?scenario=deep-bf16")
            state = wait_for(driver, "deep-bf16 draws frames", lambda s: s.get("frames", 0) >= 3)
            if state:
                nodes = state["nodes"]
                driver.save_screenshot(str(out / "web_deep-bf16.png"))
                medians = []
                for window in range(2):
                    start = viz(driver)["frames"]
                    state = wait_for(driver, "deep-bf16 draws 120 more frames", lambda s: s["frames"] >= start + 120, timeout=120)
                    if not state:
                        break
                    medians.append((statistics.median(state["frameMs"][-120:]), statistics.median(state["appMs"][-120:]),
                                    statistics.median(state["intervalMs"][-120:])))
                    if medians[-1][0] <= BUDGET_MS:
                        break
                if medians:
                    median, app, interval = min(medians)
                    figures["deep_frame_ms_median"] = median
                    figures["deep_app_ms_median"] = app
                    figures["deep_interval_ms_median"] = interval
                    print(f"measured: deep-bf16's median frame time {median:.1f} ms over 120 frames "
                          f"({'within' if median <= BUDGET_MS else 'OVER'} its {BUDGET_MS:.0f} ms budget): the app's own work "
                          f"{app:.1f} ms, WebGL's drawing the rest; a frame every {interval:.1f} ms"
                          + ("" if len(medians) == 1 else f"; windows measured: {[round(m[0], 1) for m in medians]}"), flush=True)
                unfold = point(driver, "tinyamp_item_center", "Unfold (E)")
                if check(unfold is not None, "the Unfold (E) button is drawn"):
                    click(driver, unfold)
                    after = wait_for(driver, "a click on Unfold (E) shows more nodes", lambda s: s["nodes"] > nodes, timeout=30)
                    if after:
                        check(True, "unfolding deep-bf16's modules shows more nodes", f"{nodes} -> {after['nodes']}")
            # 8. the FP8/MX inspectors
            check(len(fp8_pages) >= 4 and not any(index_fp8.values()), "the front page links the FP8/MX inspector pages",
                  f"{len(fp8_pages)} pages; FP8 colors on the front page's screenshot: {index_fp8}")
            for page in fp8_pages:
                query = page.split("?", 1)[1]
                steps = int(query.split("steps=")[1].split("&")[0]) if "steps=" in query else 0
                driver.get(page)
                state = wait_for(driver, f"{query} draws frames", lambda s: s.get("frames", 0) >= 3)
                if not state:
                    continue
                expected = "f8e5m2" if "delayed" in query and "backward:" in query else "f8e4m3fn"
                counts = inspector_counts(driver.get_screenshot_as_png())
                recipe = "delayed scaling" if "delayed" in query else "mxfp8 scaling"
                check(f"step {steps + 1}" in state["title"] and recipe in state["title"] and counts[expected] >= 100,
                      f"{query}: the inspector shows the {expected} cast ({recipe}, after {steps} steps)",
                      f"title '{state['title']}'; FP8 colors in the inspector: {counts}")
        finally:
            driver.quit()
    (out / "figures.json").write_text(json.dumps(figures, indent=2) + "\n")
    print("browser_check: figures " + json.dumps(figures))
    if failures:
        print(f"browser_check: {len(failures)} check(s) failed: " + "; ".join(failures))
        return 1
    print("browser_check: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
