# Run by ctest (tests/install/CMakeLists.txt) as `cmake -P`: configures small outside projects
# that misuse shardc_add_library against the build tree's package, and checks that each stops
# with (or warns with) a message naming the mistake, rather than building something else.
#
# Inputs (-D): BUILD_DIR WORK_DIR SHARD_SOURCE GENERATOR CXX_COMPILER
cmake_minimum_required(VERSION 3.25)

foreach(var BUILD_DIR WORK_DIR SHARD_SOURCE GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "misuse.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")

# configure_case(NAME EXPECT <fails|warns|passes> MESSAGE <text or ""> CALLS <cmake code>
#                [MINIMUM <the project's cmake_minimum_required, default 3.25>]
#                [GENERATOR <a generator other than the build's>])
function(configure_case name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "EXPECT;MESSAGE;CALLS;MINIMUM;GENERATOR" "")
  if(NOT ARG_MINIMUM)
    set(ARG_MINIMUM 3.25)
  endif()
  if(NOT ARG_GENERATOR)
    set(ARG_GENERATOR "${GENERATOR}")
  endif()
  set(dir "${WORK_DIR}/${name}")
  file(MAKE_DIRECTORY "${dir}")
  file(WRITE "${dir}/CMakeLists.txt"
       "cmake_minimum_required(VERSION ${ARG_MINIMUM})\nproject(misuse_${name} LANGUAGES CXX)\n"
       "find_package(shardc CONFIG REQUIRED)\n${ARG_CALLS}\n")
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${ARG_GENERATOR}"
            "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-Dshardc_DIR=${BUILD_DIR}" "-DSHARD_SOURCE=${SHARD_SOURCE}"
    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  # CMake wraps long messages; compare without the line breaks and indentation.
  string(REGEX REPLACE "[ \n]+" " " flat "${out}")
  if(ARG_EXPECT STREQUAL "fails" AND status EQUAL 0)
    message(FATAL_ERROR "${name}: configure succeeded; expected it to fail with '${ARG_MESSAGE}':\n${out}")
  endif()
  if(NOT ARG_EXPECT STREQUAL "fails" AND NOT status EQUAL 0)
    message(FATAL_ERROR "${name}: configure failed (${status}):\n${out}")
  endif()
  if(ARG_MESSAGE)
    string(FIND "${flat}" "${ARG_MESSAGE}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${name}: the output does not say '${ARG_MESSAGE}':\n${out}")
    endif()
  elseif(flat MATCHES "CMake (Warning|Error)")
    message(FATAL_ERROR "${name}: expected no warning:\n${out}")
  endif()
  message(STATUS "${name}: ${ARG_EXPECT} as expected")
endfunction()

configure_case(shared_keyword EXPECT fails
  MESSAGE "shardc_add_library(m): unknown arguments: SHARED (it takes SOURCES, DEFINES, NAMESPACE, OUTPUT_DIR, OPTIONS; the library is always STATIC)"
  CALLS "shardc_add_library(m SHARED SOURCES \${SHARD_SOURCE})")
configure_case(misspelt_keyword_after_sources EXPECT fails
  MESSAGE "source 'DEFINE' is not a .shard file (a misspelt keyword?"
  CALLS "shardc_add_library(m SOURCES \${SHARD_SOURCE} DEFINE N=8)")
configure_case(namespace_in_options EXPECT fails
  MESSAGE "shardc_add_library(m): OPTIONS entry '--namespace' is not for OPTIONS: use NAMESPACE for --namespace"
  CALLS "shardc_add_library(m SOURCES \${SHARD_SOURCE} OPTIONS --part-size 50 --namespace zz)")
configure_case(empty_define EXPECT fails
  MESSAGE "DEFINES entry 'N=' gives N an empty value (is the variable it came from set?)"
  CALLS "shardc_add_library(m SOURCES \${SHARD_SOURCE} DEFINES N=\${UNSET_VARIABLE})")
configure_case(namespace_twice EXPECT fails
  MESSAGE "shardc_add_library(m): NAMESPACE given 2 times (it takes one value)"
  CALLS "shardc_add_library(m SOURCES \${SHARD_SOURCE} NAMESPACE a NAMESPACE b)")
# One namespace from two libraries is fine (they link side by side: downstream's one_namespace).
configure_case(same_module_same_namespace EXPECT passes MESSAGE ""
  CALLS "shardc_add_library(small SOURCES \${SHARD_SOURCE} DEFINES N=8)\nshardc_add_library(big SOURCES \${SHARD_SOURCE} DEFINES N=64)")
configure_case(same_module_own_namespaces EXPECT passes MESSAGE ""
  CALLS "shardc_add_library(small SOURCES \${SHARD_SOURCE} DEFINES N=8 NAMESPACE small)\nshardc_add_library(big SOURCES \${SHARD_SOURCE} DEFINES N=64 NAMESPACE big)")
# A project that asks for an old CMake gets old policies, and a function runs with those of the
# file that defined it: shardc_add_library sets its own (IN_LIST needs CMP0057).
configure_case(old_minimum_version EXPECT passes MESSAGE "" MINIMUM 3.0
  CALLS "shardc_add_library(m SOURCES \${SHARD_SOURCE})")
# The package has no components; asking for one says so (not just "shardc_FOUND to FALSE").
configure_case(unknown_component EXPECT fails
  MESSAGE "shardc has no components (asked for: runtime); find_package(shardc) alone gives"
  CALLS "find_package(shardc CONFIG REQUIRED COMPONENTS runtime)")
# A relative source generated in the build folder is found there, as add_library finds one.
configure_case(generated_relative_source EXPECT passes MESSAGE ""
  CALLS "add_custom_command(OUTPUT gen.shard COMMAND \${CMAKE_COMMAND} -E copy \${SHARD_SOURCE} gen.shard)\nshardc_add_library(m SOURCES gen.shard)")
# Per-configuration DEFINES under a multi-config generator need per-configuration files.
if(GENERATOR MATCHES "Ninja")
  configure_case(per_config_defines_one_output_dir EXPECT fails GENERATOR "Ninja Multi-Config"
    MESSAGE "DEFINES, NAMESPACE or OPTIONS use a generator expression, which may differ between this generator's configurations; put $<CONFIG> in OUTPUT_DIR"
    CALLS "shardc_add_library(m SOURCES \${SHARD_SOURCE} DEFINES N=$<IF:$<CONFIG:Debug>,2,8> OUTPUT_DIR gen)")
endif()
# Two libraries writing one module into one folder, the second spelling it with a trailing slash:
# the function's message, not CMake's "already has a custom rule" (the slash made the names differ).
configure_case(same_output_dir_trailing_slash EXPECT fails
  MESSAGE "is generated by library 'a' already; give one of them another OUTPUT_DIR"
  CALLS "shardc_add_library(a SOURCES \${SHARD_SOURCE} OUTPUT_DIR out)\nshardc_add_library(b SOURCES \${SHARD_SOURCE} OUTPUT_DIR out/ NAMESPACE b)")
