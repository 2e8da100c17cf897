// graphviz_wasm_check: lays out the DOT file FILE with Graphviz's dot, in-process, the way
// visualizer/model/layout.cpp does (agmemread, gvLayout(ctx, g, "dot"), then ND_coord, ND_width,
// ED_spl, ED_label, agget(e, "id"), the clusters' GD_bb and GD_label), and prints what that
// file reads back, every number with all 17 digits. Then `dot -Tdot`'s output of the same
// layout, through the core plugin (gvRenderData).
//
// The same source is built twice by scripts/web/graphviz-wasm-check.sh: with em++ against the
// WebAssembly build (scripts/web/graphviz-wasm.sh) and run with node, and natively against
// Debian's libgvc with the system's dot_layout and core plugins; the two outputs must be equal.
// Both make the context from the linked-in plugin table (scripts/web/graphviz-wasm/builtins.c):
//   gvContextPlugins(lt_preloaded_symbols, 0)
// Natively, --system-plugins makes it with gvContext() instead, which loads every installed
// plugin (Debian's pango one measures text with real fonts), as tinyamp-viz does.
//
// The DOT text is read from a file, not stdin: Emscripten 3.1.6's stdin under node decodes what
// it reads as UTF-8 256 bytes at a time, and so garbles a multi-byte character ("→", "·" in
// tinyamp's labels) that straddles two reads. The WebAssembly build reads files with -sNODERAWFS.
//
// Usage: graphviz_wasm_check [--system-plugins] FILE
// Exit status: 0 laid out, 1 Graphviz refused the text (its message is printed), 2 usage.
#include <gvc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace {

std::string& messages()
{
    static std::string text;
    return text;
}

int collect(char* message)
{
    messages().append(message);
    return 0;
}

std::string one_line(std::string text)
{
    for (char& c : text)
        if (c == '\n') c = ' ';
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
}

void print_point(const char* what, pointf p)
{
    std::printf(" %s %.17g %.17g", what, p.x, p.y);
}

void print_box(boxf b)
{
    std::printf(" bb %.17g %.17g %.17g %.17g", b.LL.x, b.LL.y, b.UR.x, b.UR.y);
}

void print_plugins(GVC_t* gvc, const char* kind)
{
    int count = 0;
    char** names = gvPluginList(gvc, kind, &count, nullptr);
    std::printf("plugins %s:", kind);
    for (int i = 0; i < count; ++i) {
        std::printf(" %s", names[i]);
        std::free(names[i]);
    }
    std::free(names);
    std::printf("\n");
}

// Clusters as layout.cpp reads them: outer ones first, numbered from 1.
void print_clusters(Agraph_t* g)
{
    for (int i = 1; i <= GD_n_cluster(g); ++i) {
        Agraph_t* sub = GD_clust(g)[i];
        const textlabel_t* label = GD_label(sub);
        std::printf("cluster %s label \"%s\"", agnameof(sub), label && label->text ? label->text : "");
        if (label) print_point("at", label->pos);
        print_box(GD_bb(sub));
        std::printf("\n");
        print_clusters(sub);
    }
}

}  // namespace

int main(int argc, char** argv)
{
    const bool system_plugins = argc == 3 && std::strcmp(argv[1], "--system-plugins") == 0;
    if (argc != 2 + int(system_plugins) || argv[argc - 1][0] == '-') {
        std::cerr << "usage: graphviz_wasm_check [--system-plugins] FILE.dot\n";
        return 2;
    }
    std::ifstream file(argv[argc - 1], std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    if (!file) {
        std::cerr << "graphviz_wasm_check: cannot read " << argv[argc - 1] << "\n";
        return 2;
    }
    const std::string dot = text.str();

    GVC_t* gvc = system_plugins ? gvContext() : gvContextPlugins(lt_preloaded_symbols, 0);
    print_plugins(gvc, "layout");
    print_plugins(gvc, "render");
    print_plugins(gvc, "textlayout");

    agseterrf(&collect);
    Agraph_t* g = agmemread(dot.c_str());
    if (!g) {
        std::printf("error: Graphviz could not read the DOT text: %s\n", one_line(messages()).c_str());
        gvFreeContext(gvc);
        return 1;
    }
    if (gvLayout(gvc, g, "dot") != 0) {
        std::printf("error: the dot layout failed: %s\n", one_line(messages()).c_str());
        agclose(g);
        gvFreeContext(gvc);
        return 1;
    }
    if (!messages().empty()) std::printf("warnings: %s\n", one_line(messages()).c_str());

    std::printf("graph %s", agnameof(g));
    print_box(GD_bb(g));
    std::printf("\n");
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
        // ND_width/ND_height are in inches, the coordinates in points, as layout.cpp reads them.
        std::printf("node %s", agnameof(n));
        print_point("at", ND_coord(n));
        std::printf(" size %.17g %.17g\n", ND_width(n) * 72.0, ND_height(n) * 72.0);
    }
    for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
        for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e)) {
            const char* id = agget(e, const_cast<char*>("id"));
            std::printf("edge %s -> %s id \"%s\"", agnameof(agtail(e)), agnameof(aghead(e)), id ? id : "");
            const splines* spl = ED_spl(e);
            if (spl && spl->size > 0) {
                const bezier& bz = spl->list[0];
                std::printf(" beziers %d points %d:", spl->size, bz.size);
                for (int i = 0; i < bz.size; ++i) print_point("", bz.list[i]);
                if (bz.eflag) print_point("head-arrow", bz.ep);
                if (bz.sflag) print_point("tail-arrow", bz.sp);
            }
            if (const textlabel_t* label = ED_label(e)) print_point("label", label->pos);
            std::printf("\n");
        }
    }
    print_clusters(g);

    char* rendered = nullptr;
    unsigned int length = 0;
    if (gvRenderData(gvc, g, "dot", &rendered, &length) != 0) {
        std::printf("error: the core plugin could not write -Tdot: %s\n", one_line(messages()).c_str());
        return 1;
    }
    std::printf("--- -Tdot\n%.*s", int(length), rendered);
    gvFreeRenderData(rendered);

    gvFreeLayout(gvc, g);
    agclose(g);
    return gvFreeContext(gvc) == 0 ? 0 : 1;
}
