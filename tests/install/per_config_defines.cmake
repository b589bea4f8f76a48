# Run by ctest (tests/install/CMakeLists.txt) as `cmake -P`: DEFINES whose generator expression
# differs between the configurations of a multi-config build (Ninja Multi-Config, building every
# configuration in one run) give each configuration its own generated code. Before, both
# configurations' rules wrote the same files and Release linked Debug's code (N = 2 in both).
#
# Inputs (-D): BUILD_DIR WORK_DIR SHARD_SOURCE CXX_COMPILER
cmake_minimum_required(VERSION 3.25)

foreach(var BUILD_DIR WORK_DIR SHARD_SOURCE CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "per_config_defines.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(WRITE "${WORK_DIR}/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.25)
set(CMAKE_CONFIGURATION_TYPES Debug Release)
project(per_config_defines LANGUAGES CXX)
find_package(shardc CONFIG REQUIRED)
shardc_add_library(scaled SOURCES ${SHARD_SOURCE} DEFINES N=$<IF:$<CONFIG:Debug>,2,8>)
add_executable(print_n print_n.cpp)
target_link_libraries(print_n PRIVATE scaled)
]=])
file(WRITE "${WORK_DIR}/print_n.cpp"
     "#include <cstdio>\n#include \"scaled.shard.h\"\n"
     "int main() { std::printf(\"N=%lld\\n\", static_cast<long long>(shardgen::scaled::N)); }\n")

function(run)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE status
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "per_config_defines: `${ARGN}` failed (${status}):\n${out}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run("${CMAKE_COMMAND}" -S "${WORK_DIR}" -B "${WORK_DIR}/build" -G "Ninja Multi-Config" -DCMAKE_CROSS_CONFIGS=all
    "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-Dshardc_DIR=${BUILD_DIR}" "-DSHARD_SOURCE=${SHARD_SOURCE}")
run("${CMAKE_COMMAND}" --build "${WORK_DIR}/build" --target all:all)
foreach(config_and_n Debug:2 Release:8)
  string(REPLACE ":" ";" pair "${config_and_n}")
  list(GET pair 0 config)
  list(GET pair 1 n)
  run("${WORK_DIR}/build/${config}/print_n")
  if(NOT out STREQUAL "N=${n}\n")
    message(FATAL_ERROR "per_config_defines: the ${config} program printed '${out}', expected N=${n}")
  endif()
  message(STATUS "${config}: N=${n} as expected")
endforeach()
