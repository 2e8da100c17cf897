// How wide each label is, for Graphviz's dot layout in the browser. Natively Graphviz measures
// labels with Pango and the system's fonts; the web build has no Pango, and without a text
// layout plugin Graphviz guesses widths from Arial's table, narrower than DejaVu Sans, the font
// the app draws with: the boxes came out smaller, the whole graph 0.9 times as wide, and the
// first view showed less of it than the native one. This plugin measures with DejaVu Sans itself
// (the page's /fonts/DejaVuSans.ttf, read with stb_truetype, as ImGui reads it), by Pango's
// plugin's rules (gvtextlayout_pango.c): width rounded up, height 1.1 x the size, baseline at the
// font's ascent, centre line 0.2 x the size below the middle.
//
// Also here: the table of the plugins linked into the page (libltdl would fill it natively),
// which layout.cpp gives to gvContextPlugins.
#include <gvc.h>
#include <gvplugin.h>
#include <gvplugin_textlayout.h>

#include <cstdio>
#include <vector>

#define STB_TRUETYPE_IMPLEMENTATION
#define STBTT_STATIC
#include <imstb_truetype.h>

namespace {

struct DejaVu {
    std::vector<unsigned char> bytes;
    stbtt_fontinfo info{};
    bool ok = false;
};

const DejaVu& dejavu()
{
    static const DejaVu font = [] {
        DejaVu f;
        if (std::FILE* file = std::fopen(TINYAMP_VIZ_FONT_PATH, "rb")) {
            unsigned char chunk[65536];
            for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, file)) > 0;) f.bytes.insert(f.bytes.end(), chunk, chunk + n);
            std::fclose(file);
            f.ok = !f.bytes.empty() && stbtt_InitFont(&f.info, f.bytes.data(), stbtt_GetFontOffsetForIndex(f.bytes.data(), 0)) != 0;
        }
        return f;
    }();
    return font;
}

// The next code point of UTF-8 text (a bad byte reads as itself).
unsigned next_code_point(const unsigned char*& s)
{
    const unsigned c = *s++;
    const int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    unsigned code = more == 3 ? c & 0x07 : more == 2 ? c & 0x0F : more == 1 ? c & 0x1F : c;
    for (int i = 0; i < more && (*s & 0xC0) == 0x80; ++i) code = (code << 6) | (*s++ & 0x3F);
    return code;
}

boolean dejavu_text_layout(textspan_t* span, char** /*fontpath*/)
{
    const DejaVu& font = dejavu();
    if (!font.ok || !span->str) return FALSE;  // Graphviz then falls back to its own estimate
    const double size = span->font->size;
    const float scale = stbtt_ScaleForMappingEmToPixels(&font.info, float(size));
    double width = 0;
    int previous = 0;
    for (const unsigned char* s = reinterpret_cast<const unsigned char*>(span->str); *s;) {
        const int glyph = stbtt_FindGlyphIndex(&font.info, int(next_code_point(s)));
        int advance = 0, bearing = 0;
        stbtt_GetGlyphHMetrics(&font.info, glyph, &advance, &bearing);
        width += advance * scale + (previous ? stbtt_GetGlyphKernAdvance(&font.info, previous, glyph) * scale : 0);
        previous = glyph;
    }
    int ascent = 0, descent = 0, gap = 0;
    stbtt_GetFontVMetrics(&font.info, &ascent, &descent, &gap);
    span->size.x = int(width + 1);
    span->size.y = int(size * 1.1 + .5);
    span->yoffset_layout = ascent * scale;
    span->yoffset_centerline = 0.2 * size;
    span->layout = nullptr;
    span->free_layout = nullptr;
    return TRUE;
}

gvtextlayout_engine_t dejavu_engine = {dejavu_text_layout};
gvplugin_installed_t text_layouts[] = {{0, "textlayout", 10, &dejavu_engine, nullptr}, {0, nullptr, 0, nullptr, nullptr}};
gvplugin_api_t text_apis[] = {{API_textlayout, text_layouts}, {static_cast<api_t>(0), nullptr}};

}  // namespace

extern "C" {
extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;
gvplugin_library_t gvplugin_tinyamp_text_LTX_library = {const_cast<char*>("tinyamp_text"), text_apis};

lt_symlist_t lt_preloaded_symbols[] = {
    {"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
    {"gvplugin_core_LTX_library", &gvplugin_core_LTX_library},
    {"gvplugin_tinyamp_text_LTX_library", &gvplugin_tinyamp_text_LTX_library},
    {nullptr, nullptr},
};
}
