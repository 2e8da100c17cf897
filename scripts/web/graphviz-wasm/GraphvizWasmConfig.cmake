# find_package(GraphvizWasm CONFIG) for Graphviz built for WebAssembly by
# scripts/web/graphviz-wasm.sh DEST: point CMAKE_PREFIX_PATH (or GraphvizWasm_DIR) at DEST.
# Targets:
#   GraphvizWasm::dot     what a program that lays graphs out links: libgvc (gvc.h, cgraph.h) with
#                         the dot_layout and core plugins and their table; make the context with
#                         gvContextPlugins(lt_preloaded_symbols, 0)
#   GraphvizWasm::gvc     libgvc without any plugin (and so without a layout)
#   GraphvizWasm::cgraph  the graph library alone (cgraph.h)
# Relocatable: paths are found from this file's folder, DEST/lib/cmake/GraphvizWasm.
get_filename_component(_gvw_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(GraphvizWasm_VERSION 2.43.0)
set(GraphvizWasm_INCLUDE_DIR "${_gvw_prefix}/include/graphviz")

# Link order for one-pass linkers; wasm-ld (as all of lld) does not need it.
foreach(_gvw_lib gvplugin_builtins gvplugin_dot_layout gvplugin_core gvc xdot pathplan cgraph cdt)
  if(NOT TARGET GraphvizWasm::${_gvw_lib})
    add_library(GraphvizWasm::${_gvw_lib} STATIC IMPORTED)
    set_target_properties(GraphvizWasm::${_gvw_lib} PROPERTIES
      IMPORTED_LOCATION "${_gvw_prefix}/lib/lib${_gvw_lib}.a"
      INTERFACE_INCLUDE_DIRECTORIES "${GraphvizWasm_INCLUDE_DIR}")
  endif()
endforeach()
set_target_properties(GraphvizWasm::cgraph PROPERTIES INTERFACE_LINK_LIBRARIES GraphvizWasm::cdt)
set_target_properties(GraphvizWasm::gvc PROPERTIES INTERFACE_LINK_LIBRARIES
  "GraphvizWasm::xdot;GraphvizWasm::pathplan;GraphvizWasm::cgraph")
set_target_properties(GraphvizWasm::gvplugin_dot_layout PROPERTIES INTERFACE_LINK_LIBRARIES GraphvizWasm::gvc)
set_target_properties(GraphvizWasm::gvplugin_core PROPERTIES INTERFACE_LINK_LIBRARIES GraphvizWasm::gvc)
set_target_properties(GraphvizWasm::gvplugin_builtins PROPERTIES INTERFACE_LINK_LIBRARIES
  "GraphvizWasm::gvplugin_dot_layout;GraphvizWasm::gvplugin_core")
# What a program names: the context, the layout and both plugins.
if(NOT TARGET GraphvizWasm::dot)
  add_library(GraphvizWasm::dot INTERFACE IMPORTED)
  set_target_properties(GraphvizWasm::dot PROPERTIES INTERFACE_LINK_LIBRARIES
    "GraphvizWasm::gvplugin_builtins;GraphvizWasm::gvc")
endif()
unset(_gvw_lib)
unset(_gvw_prefix)
