# Run by ctest (tests/install/CMakeLists.txt) as `cmake -P`. MODE=install: installs the
# already built tree to a fresh prefix, then configures, builds and tests downstream/ against
# that prefix only. MODE=build-tree: the same against the build tree's own package
# (shardc_DIR = BUILD_DIR), nothing installed. When shardc generates C++, it also checks that
# shardc_add_library regenerates a library's C++ when its .shard file changes.
#
# Inputs (-D): MODE BUILD_DIR PREFIX WORK_DIR DOWNSTREAM_SOURCE EXAMPLES_DIR GENERATOR
#              CXX_COMPILER BUILD_TYPE   (PREFIX only for MODE=install)
cmake_minimum_required(VERSION 3.25)

if(NOT MODE STREQUAL "install" AND NOT MODE STREQUAL "build-tree")
  message(FATAL_ERROR "install_and_build.cmake: -DMODE=install or -DMODE=build-tree")
endif()
if(MODE STREQUAL "build-tree")
  set(PREFIX "${BUILD_DIR}")
endif()

foreach(var BUILD_DIR PREFIX WORK_DIR DOWNSTREAM_SOURCE EXAMPLES_DIR GENERATOR CXX_COMPILER BUILD_TYPE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_and_build.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${out}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
if(MODE STREQUAL "install")
  file(REMOVE_RECURSE "${PREFIX}")

  # 1. Install what the build tree already built.
  run_step("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}")
  foreach(file bin/shardc include/shard/shard.h include/shard/runtime.h include/shardgen_prelude.h
               lib/pkgconfig/shardc-runtime.pc lib/cmake/shardc/shardcConfig.cmake lib/cmake/shardc/shardcConfigVersion.cmake
               lib/cmake/shardc/shardcTargets.cmake lib/cmake/shardc/ShardcAddLibrary.cmake)
    if(NOT EXISTS "${PREFIX}/${file}")
      message(FATAL_ERROR "the install has no ${file}")
    endif()
  endforeach()
  file(GLOB runtime_archives "${PREFIX}/lib*/libshard_runtime.a")
  if(NOT runtime_archives)
    message(FATAL_ERROR "the install has no libshard_runtime.a")
  endif()

  # 1b. Without CMake: the runtime smoke test and one module's generated C++, compiled and
  #     linked with nothing but the flags of the installed pkg-config file, and run.
  find_program(pkg_config pkg-config REQUIRED)
  file(GLOB pc_dirs "${PREFIX}/lib*/pkgconfig")
  set(ENV{PKG_CONFIG_PATH} "${pc_dirs}")
  run_step("pkg-config shardc-runtime" "${pkg_config}" --cflags --libs shardc-runtime)
  string(STRIP "${step_output}" pc_flags)
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  set(plain "${WORK_DIR}/without_cmake")
  run_step("shardc -o (without CMake)" "${PREFIX}/bin/shardc" "${DOWNSTREAM_SOURCE}/scaled.shard" -o "${plain}")
  run_step("compiling with pkg-config's flags" "${CXX_COMPILER}" -std=c++20 "${DOWNSTREAM_SOURCE}/runtime_smoke.cpp"
           "${plain}/scaled.shard.cpp" -I "${plain}" ${pc_flags} -o "${plain}/runtime_smoke")
  run_step("running what pkg-config's flags built" "${plain}/runtime_smoke")
  message(STATUS "build without CMake (pkg-config shardc-runtime): ok")
endif()

# A copy of one example that step 4 edits (the source tree is never touched).
set(regen_source "${WORK_DIR}/regen_probe.shard")
file(READ "${EXAMPLES_DIR}/explicit_matmul.shard" example_text)
file(WRITE "${regen_source}" "${example_text}\nconst REGEN_MARK = 1;\n")

# The installed package is used from a Debug build, a configuration it was not built in (the
# imported targets must still resolve), which also compiles the examples' generated C++ at -O0,
# 2.6x faster than the Release build's -O3. The build tree's package is used as it was built
# under Ninja, and from Debug under Make (that test is about Make's rebuild rules), with the
# regeneration probe alone (the examples were just built against the install).
if(MODE STREQUAL "install")
  set(downstream_build_type Debug)
  set(downstream_examples ON)
else()
  set(downstream_build_type "${BUILD_TYPE}")
  if(GENERATOR STREQUAL "Unix Makefiles")
    set(downstream_build_type Debug)
  endif()
  set(downstream_examples OFF)
endif()

# 2. Configure downstream/ against the prefix only: no package registry, no system shardc.
set(build "${WORK_DIR}/build")
# One job per core: Make builds one file at a time unless told otherwise, and Ninja's default
# of cores + 2 jobs oversubscribes a small machine.
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
set(build_downstream "${CMAKE_COMMAND}" --build "${build}" --parallel ${cores})
run_step("configuring downstream/"
  "${CMAKE_COMMAND}" -S "${DOWNSTREAM_SOURCE}" -B "${build}" -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_BUILD_TYPE=${downstream_build_type}"
  "-DSHARDC_DOWNSTREAM_EXAMPLES=${downstream_examples}"
  "-DCMAKE_PREFIX_PATH=${PREFIX}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "-Dshardc_ROOT=${PREFIX}"
  "-DSHARDC_EXAMPLES_DIR=${EXAMPLES_DIR}" "-DSHARDC_REGEN_PROBE=${regen_source}")
file(STRINGS "${build}/CMakeCache.txt" found_dir REGEX "^shardc_DIR:")
if(NOT found_dir MATCHES "=${PREFIX}(/|$)")
  message(FATAL_ERROR "find_package(shardc) found the wrong package: ${found_dir}")
endif()

# 3. Build and run its tests.
run_step("building downstream/" ${build_downstream})
run_step("testing downstream/" "${CMAKE_COMMAND}" -E chdir "${build}" ctest --output-on-failure)
message(STATUS "${step_output}")

# 4. Editing a .shard file regenerates its C++ on the next build.
set(header "${build}/regen_probe.shardc/regen_probe/regen_probe.shard.h")
file(STRINGS "${header}" marks REGEX "REGEN_MARK")
if(NOT marks MATCHES "1")
  message(FATAL_ERROR "${header} does not declare REGEN_MARK = 1: ${marks}")
endif()
file(WRITE "${regen_source}" "${example_text}\nconst REGEN_MARK = 27;\n")
run_step("rebuilding downstream/" ${build_downstream})
file(STRINGS "${header}" marks REGEX "REGEN_MARK")
if(NOT marks MATCHES "27")
  message(FATAL_ERROR "editing ${regen_source} did not regenerate ${header}: ${marks}")
endif()
message(STATUS "regeneration after an edit: ok")

# 5. A build with nothing changed runs no shardc. Make does not restat outputs: before the
#    stamp (ShardcAddLibrary.cmake), it reran shardc on every build once an edit had left the
#    generated files, which shardc does not rewrite when unchanged, older than the .shard.
file(APPEND "${regen_source}" "// a comment: the generated C++ does not change\n")
run_step("rebuilding downstream/ after a comment" ${build_downstream})
run_step("rebuilding downstream/ unchanged" ${build_downstream})
if(step_output MATCHES "shardc: generating")
  message(FATAL_ERROR "a build with nothing changed ran shardc again:\n${step_output}")
endif()
message(STATUS "no regeneration when nothing changed: ok")
