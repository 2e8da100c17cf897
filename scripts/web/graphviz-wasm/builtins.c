/* The plugins linked into this WebAssembly build of Graphviz (scripts/web/graphviz-wasm.sh),
 * in the table libltdl would otherwise fill: a program makes its context with
 *     GVC_t* gvc = gvContextPlugins(lt_preloaded_symbols, 0);
 * (gvContext() finds no plugins without libltdl, and gvLayout(gvc, g, "dot") then fails with
 * 'Layout type: "dot" not recognized'). Graphviz's own cmd/dot/dot_builtins.c is the model.
 * The same file compiles natively against Debian's libgvc (scripts/web/graphviz-wasm-check.sh
 * does), with the system's libgvplugin_dot_layout.so.6 and libgvplugin_core.so.6. */
#include "gvplugin.h"

extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;

lt_symlist_t lt_preloaded_symbols[] = {
    {"gvplugin_dot_layout_LTX_library", (void*)&gvplugin_dot_layout_LTX_library},
    {"gvplugin_core_LTX_library", (void*)&gvplugin_core_LTX_library},
    {0, 0},
};
