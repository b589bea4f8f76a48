# The install rules and the `shardc` CMake package (P/lib/cmake/shardc/), plus the names that
# make shardc_add_library work the same way inside this build tree and from an install:
#   shardc::shardc, shardc::runtime, SHARDC_TEMPLATE_DIR.
# Included by the top-level CMakeLists.txt after every stage's subdirectory, so that the
# targets it refers to exist. The stages install their own targets into the export set
# `shardcTargets` (runtime/, runtime/kernels/, runtime/random/, tools/shardc/).
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

# Inside this tree, the same names the installed package exports.
add_executable(shardc::shardc ALIAS shardc)
add_library(shardc::runtime ALIAS shard_runtime)
# Generated code and the runtime headers are C++20; say so to every consumer.
target_compile_features(shard_runtime PUBLIC cxx_std_20)

set(SHARDC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/shardc)
set(SHARDC_INSTALL_TEMPLATEDIR ${CMAKE_INSTALL_DATADIR}/shardc/templates)
set(SHARDC_TEMPLATE_DIR ${PROJECT_SOURCE_DIR}/templates)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/templates/ DESTINATION ${SHARDC_INSTALL_TEMPLATEDIR})

include(ShardcAddLibrary)

install(EXPORT shardcTargets
  NAMESPACE shardc::
  FILE shardcTargets.cmake
  DESTINATION ${SHARDC_INSTALL_CMAKEDIR})

# The installed config is written aside (package/) so that the build tree's own config can
# live at the top of the build tree.
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/shardcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/shardcConfig.cmake
  INSTALL_DESTINATION ${SHARDC_INSTALL_CMAKEDIR}
  PATH_VARS SHARDC_INSTALL_TEMPLATEDIR)
# 0.x: a minor version may change the generated API, so only the same minor version matches.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/shardcConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/package/shardcConfig.cmake
  ${PROJECT_BINARY_DIR}/shardcConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/ShardcAddLibrary.cmake
  DESTINATION ${SHARDC_INSTALL_CMAKEDIR})

# A pkg-config file for builds without CMake (Make, Meson, Bazel): the same libraries in link
# order, and the OpenMP library the runtime was built with, by path as in runtime/CMakeLists.txt.
# (cmake/ShardcCompileOptions.cmake chose it; -pthread is on the line already.)
list(JOIN SHARDC_OPENMP_LIBRARIES " " SHARDC_PC_OPENMP_LIBS)
# Relative to the file itself (pkg-config's pcfiledir), so that `cmake --install --prefix P`
# anywhere gives a file that points into P.
file(RELATIVE_PATH SHARDC_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" SHARDC_PC_TO_PREFIX "${SHARDC_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/shardc-runtime.pc.in ${PROJECT_BINARY_DIR}/package/shardc-runtime.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/shardc-runtime.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The same package straight from this build tree, without installing:
#   find_package(shardc) with -Dshardc_DIR=<build dir> (or the build dir in CMAKE_PREFIX_PATH)
# gives the targets of this tree (headers from the source tree, libraries and shardc from the
# build tree), e.g. for `shardc run` or a quick outside build.
export(EXPORT shardcTargets NAMESPACE shardc:: FILE ${PROJECT_BINARY_DIR}/shardcTargets.cmake)
configure_file(${CMAKE_CURRENT_LIST_DIR}/shardcBuildTreeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/shardcConfig.cmake @ONLY)
