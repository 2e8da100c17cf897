# The package test: installs tinyamp from BUILD_DIR into a fresh temporary folder, then configures,
# builds and runs an outside project (consumer/ + examples/amp_training.cpp) that finds it with
# find_package(tinyamp). Run by CTest as
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DCXX_COMPILER=... -P check_package.cmake
# On success the temporary folder is removed; on failure it is kept and its path printed.
foreach(input BUILD_DIR SOURCE_DIR CXX_COMPILER)
  if(NOT DEFINED ${input})
    message(FATAL_ERROR "check_package.cmake: pass -D${input}=...")
  endif()
endforeach()

set(temp_root "$ENV{TMPDIR}")
if(temp_root STREQUAL "")
  set(temp_root /tmp)
endif()
string(RANDOM LENGTH 8 suffix)
set(work "${temp_root}/tinyamp-package-${suffix}")
file(MAKE_DIRECTORY "${work}/src")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package test: ${what} failed (exit ${rc}); its folder is kept: ${work}\n${out}")
  endif()
  message(STATUS "package test: ${what}: ok")
  message(VERBOSE "${out}")
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run("cmake --install into ${work}/prefix" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${work}/prefix")
foreach(installed include/tinyamp/tinyamp.h include/tinyamp/version.h include/tinyamp/scaler/grad_scaler.h
                  include/tinyamp/amp/grad_scaler.h include/tinyamp/core/tensor.h
                  lib/libtinyamp.a lib/cmake/tinyamp/tinyampConfig.cmake share/tinyamp/data/digits.csv.gz
                  share/tinyamp/data/kjv_1mb.txt.gz)
  if(NOT EXISTS "${work}/prefix/${installed}")
    message(FATAL_ERROR "package test: `cmake --install` did not install ${installed}; its folder is kept: ${work}")
  endif()
endforeach()

file(COPY "${SOURCE_DIR}/tests/package/consumer/CMakeLists.txt" "${SOURCE_DIR}/tests/package/consumer/old_include_paths.cpp"
  "${SOURCE_DIR}/tests/package/consumer/distributed_average.cpp" DESTINATION "${work}/src")
file(COPY "${SOURCE_DIR}/examples/amp_training.cpp" DESTINATION "${work}/src")
run("configure the outside project"
  ${CMAKE_COMMAND} -S "${work}/src" -B "${work}/build" -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${work}/prefix -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
if(NOT last_output MATCHES "found tinyamp [0-9]+\\.[0-9]+\\.[0-9]+ in ${work}/prefix/lib/cmake/tinyamp")
  message(FATAL_ERROR "package test: find_package(tinyamp) did not find the installed tree ${work}/prefix:\n${last_output}")
endif()

# The outside project must compile against the installed headers only.
file(READ "${work}/build/compile_commands.json" compile_commands)
foreach(tree "${SOURCE_DIR}" "${BUILD_DIR}")
  string(FIND "${compile_commands}" "${tree}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "package test: the outside project's compile command names ${tree}; it must use only ${work}/prefix:\n${compile_commands}")
  endif()
endforeach()

run("build the outside project" ${CMAKE_COMMAND} --build "${work}/build")
run("run it (the README's AMP example on the installed digits)"
  ${CMAKE_CTEST_COMMAND} --test-dir "${work}/build" --output-on-failure)
file(REMOVE_RECURSE "${work}")
