# `cmake --install build [--prefix DIR]`: the library, its headers, the data sets, the tools, and a
# CMake package, so that an outside project does
#   find_package(tinyamp) + target_link_libraries(app PRIVATE tinyamp::tinyamp)
# tests/package/ checks exactly that, from a temporary folder, against an installed tree.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TINYAMP_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tinyamp)
set(TINYAMP_INSTALL_DATA_DIR ${CMAKE_INSTALL_DATADIR}/tinyamp/data)

install(TARGETS tinyamp EXPORT tinyampTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# tinyamp::distributed (issue 42), where this build found MPI: find_package(tinyamp COMPONENTS
# distributed) then finds MPI too (tinyampConfig.cmake) and fails, saying why, where it was not built.
if(TINYAMP_HAS_MPI)
  set_target_properties(tinyamp_distributed PROPERTIES EXPORT_NAME distributed)
  install(TARGETS tinyamp_distributed EXPORT tinyampTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tinyamp/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tinyamp
  FILES_MATCHING PATTERN "*.h")
# tinyamp 0.1's header paths, each forwarding to where issue 40 moved it; for one release (compat/README.md).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/compat/tinyamp/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tinyamp
  FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/generated/tinyamp/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tinyamp)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/ DESTINATION ${TINYAMP_INSTALL_DATA_DIR})

install(EXPORT tinyampTargets NAMESPACE tinyamp:: DESTINATION ${TINYAMP_INSTALL_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tinyampConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/tinyampConfig.cmake
  INSTALL_DESTINATION ${TINYAMP_INSTALL_CMAKE_DIR}
  PATH_VARS TINYAMP_INSTALL_DATA_DIR)
# 0.x: a minor version may change the API, so 0.1 accepts 0.1.y only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/tinyampConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/tinyampConfig.cmake ${PROJECT_BINARY_DIR}/cmake/tinyampConfigVersion.cmake
  DESTINATION ${TINYAMP_INSTALL_CMAKE_DIR})
