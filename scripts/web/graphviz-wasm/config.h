/* config.h for Graphviz 2.42.2 (Debian's source package) built with Emscripten by
 * scripts/web/graphviz-wasm.sh, in place of the one ./configure writes. It defines only what the
 * libraries built there read (cdt, cgraph, pathplan, xdot, common, gvc, pack, label, ortho, dotgen
 * and the dot_layout and core plugins), with the values Debian's build has on glibc, except:
 *   - no ENABLE_LTDL: plugins cannot be loaded at run time; dot_layout and core are linked in
 *     (libgvplugin_builtins.a, gvContextPlugins(lt_preloaded_symbols, 0));
 *   - no HAVE_EXPAT: HTML-like labels (label=<...>) are refused with Graphviz's own message;
 *   - no HAVE_LIBZ: no compressed output (svgz);
 *   - no HAVE_ICONV: cgraph reads DOT text as it is (UTF-8), as Debian's build does
 *     (cgraph/io.c undefines HAVE_ICONV itself).
 * The version strings are Debian's: its build has no git history, so autogen.sh names it
 * 2.43.0 with date 0 ("dot -V": "graphviz version 2.43.0 (0)"); the date is in builddate.h,
 * which scripts/web/graphviz-wasm.sh writes as configure.ac does. */
#ifndef GRAPHVIZ_WASM_CONFIG_H
#define GRAPHVIZ_WASM_CONFIG_H

#define PACKAGE_BUGREPORT "http://www.graphviz.org/"
#define PACKAGE_NAME "graphviz"
#define PACKAGE_STRING "graphviz 2.43.0"
#define PACKAGE_TARNAME "graphviz"
#define PACKAGE_URL ""
#define PACKAGE_VERSION "2.43.0"
#define GVPLUGIN_CONFIG_FILE "config6a"
#define GVPLUGIN_VERSION 6
/* Read only when plugins are loaded from files (ENABLE_LTDL), which this build cannot do. */
#define GVLIBDIR "/usr/lib/graphviz"

#define DEFAULT_DPI 96
#define ORTHO 1

#define HAVE_CBRT 1
#define HAVE_DRAND48 1
#define HAVE_SRAND48 1
#define HAVE_SETENV 1
#define HAVE_SINCOS 1
#define HAVE_VSNPRINTF 1
#define HAVE_STRCASECMP 1
#define HAVE_STRNCASECMP 1
#define HAVE_MALLOC_H 1
#define HAVE_STRINGS_H 1
#define HAVE_SYS_MMAN_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_UNISTD_H 1

#endif
