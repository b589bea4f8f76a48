# shardc_add_library: compile .shard files to C++ with shardc and build them into a library.
#
#   shardc_add_library(NAME
#                      SOURCES a.shard [b.shard ...]
#                      [DEFINES B=1024 [FLAG=true ...]]
#                      [NAMESPACE ns]
#                      [OUTPUT_DIR dir]
#                      [OPTIONS shardc-flag ...])
#
# For every source FILE.shard, `shardc FILE.shard -D ... [OPTIONS] -o OUTPUT_DIR` writes
# OUTPUT_DIR/MODULE.shard.h and OUTPUT_DIR/MODULE.shard.cpp, where MODULE is the file's base
# name made into a C identifier (the rule of shardc::module_name_for_file). NAME becomes a
# static library of the generated .cpp files that links shardc::runtime.
#
# OUTPUT_DIR defaults to ${CMAKE_CURRENT_BINARY_DIR}/NAME.shardc/NAME, one folder per library,
# so two libraries built from the same .shard file (say with different DEFINES) never write the
# same files. Both that folder and its parent are public include paths: `#include
# "MODULE.shard.h"`, or `#include "NAME/MODULE.shard.h"` where a source uses two libraries with
# a module of the same name. (With an OUTPUT_DIR given, only that folder is.) The C++ is in
# namespace NS::MODULE, NS being NAMESPACE (default shardgen), inside an inline namespace named
# after a hash of the generated code: two libraries that generate one namespace from different
# code link into one program side by side, each source calling the library whose header it
# includes. A source that uses both needs them in different NAMESPACEs.
#
# The generated files are rebuilt when a .shard file, a code generation template or the shardc
# executable changes. A source may itself be generated at build time (the GENERATED property,
# as add_custom_command's OUTPUT sets it); a relative path names a file of the source folder,
# or else one generated in the build folder.
#
# Under a multi-config generator, DEFINES, NAMESPACE or OPTIONS with a generator expression
# (N=$<IF:$<CONFIG:Debug>,2,8>) generate each configuration's files in a folder of its own
# (NAME.shardc/$<CONFIG>/NAME); an OUTPUT_DIR given with them must contain $<CONFIG>.
#
# Every DEFINES entry goes to every source, and shardc rejects a define naming no const of the
# module: sources that do not share their consts go in separate libraries. CMake's boolean
# words (ON, OFF, YES, NO, TRUE, FALSE, Y, N, in any case) are passed as true and false, so
# `FLAG=${SOME_OPTION}` works; 1 and 0 stay numbers (the const may be an int), which a bool
# const refuses. OPTIONS go to shardc as they are (say `--part-size 50`).
#
# The same function serves this build tree (where shardc is a target and the templates are in
# the source tree) and the installed package (find_package(shardc)); both define
#   shardc::shardc        the compiler (an executable target or an imported executable)
#   shardc::runtime       the runtime library
#   shardc::prelude       (this tree only) the include path of templates/shardgen_prelude.h
#   SHARDC_TEMPLATE_DIR   the code generation templates, when shardc reads them at run time
# Modelled on Halide's add_halide_library (cmake/HalideGeneratorHelpers.cmake).
include_guard(GLOBAL)

# A function runs with the policies in force where it was defined, not where it is called: this
# keeps a project whose cmake_minimum_required is older (IN_LIST needs CMP0057) working.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.25)

function(shardc_add_library NAME)
  set(options "")
  set(one_value_keywords OUTPUT_DIR NAMESPACE)
  set(multi_value_keywords SOURCES DEFINES OPTIONS)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "${options}" "${one_value_keywords}" "${multi_value_keywords}")

  # Words before the first keyword are not read as anything (SHARED, a misspelt SOURCES):
  # building without them would be a different library than the one asked for.
  set(keywords "SOURCES, DEFINES, NAMESPACE, OUTPUT_DIR, OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "shardc_add_library(${NAME}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS} "
                        "(it takes ${keywords}; the library is always STATIC)")
  endif()
  # cmake_parse_arguments keeps the last of a repeated one-value keyword: NAMESPACE a NAMESPACE b
  # would quietly build into b.
  foreach(keyword IN LISTS one_value_keywords)
    set(count 0)
    foreach(arg IN LISTS ARGN)
      if(arg STREQUAL keyword)
        math(EXPR count "${count} + 1")
      endif()
    endforeach()
    if(count GREATER 1)
      message(FATAL_ERROR "shardc_add_library(${NAME}): ${keyword} given ${count} times (it takes one value)")
    endif()
  endforeach()
  if(ARG_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "shardc_add_library(${NAME}): keywords given without a value: ${ARG_KEYWORDS_MISSING_VALUES}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "shardc_add_library(${NAME}): SOURCES must name at least one .shard file")
  endif()
  if(TARGET ${NAME})
    message(FATAL_ERROR "shardc_add_library(${NAME}): a target named ${NAME} already exists")
  endif()
  if(NOT TARGET shardc::shardc)
    message(FATAL_ERROR "shardc_add_library(${NAME}): no shardc::shardc target; "
                        "call find_package(shardc) first (or build shardc in this tree)")
  endif()
  if(NOT TARGET shardc::runtime)
    message(FATAL_ERROR "shardc_add_library(${NAME}): no shardc::runtime target; call find_package(shardc) first")
  endif()

  # A generator expression in DEFINES, NAMESPACE or OPTIONS ($<IF:$<CONFIG:Debug>,2,8>) may give
  # each configuration of a multi-config build different code, which must then live in
  # different files: with one set of files, the configurations' rules would write the same
  # outputs and one configuration would silently build the other's code.
  set(per_config FALSE)
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config AND "${ARG_DEFINES};${ARG_NAMESPACE};${ARG_OPTIONS}" MATCHES "\\$<")
    set(per_config TRUE)
    if(ARG_OUTPUT_DIR AND NOT ARG_OUTPUT_DIR MATCHES "\\$<CONFIG>")
      message(FATAL_ERROR "shardc_add_library(${NAME}): DEFINES, NAMESPACE or OPTIONS use a generator expression, "
                          "which may differ between this generator's configurations; put $<CONFIG> in OUTPUT_DIR "
                          "(or leave it out) so that each configuration gets its own generated files")
    endif()
  endif()
  set(include_dirs "")
  if(NOT ARG_OUTPUT_DIR)
    set(library_dir "${CMAKE_CURRENT_BINARY_DIR}/${NAME}.shardc")
    if(per_config)
      string(APPEND library_dir "/$<CONFIG>")
    endif()
    set(ARG_OUTPUT_DIR "${library_dir}/${NAME}")
    list(APPEND include_dirs "${library_dir}")  # "NAME/MODULE.shard.h"
  endif()
  cmake_path(ABSOLUTE_PATH ARG_OUTPUT_DIR BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE)
  # NORMALIZE keeps a trailing slash ("out/"): the same folder must give the same file names below.
  string(REGEX REPLACE "(.)/+$" "\\1" ARG_OUTPUT_DIR "${ARG_OUTPUT_DIR}")
  list(PREPEND include_dirs "${ARG_OUTPUT_DIR}")

  # OPTIONS may not take over what the function's keywords do: the library's include folder,
  # its dependencies and the namespace check below follow DEFINES, NAMESPACE and OUTPUT_DIR.
  foreach(option IN LISTS ARG_OPTIONS)
    if(option MATCHES "^(--namespace|-D|-o|--emit|--check)")
      message(FATAL_ERROR "shardc_add_library(${NAME}): OPTIONS entry '${option}' is not for OPTIONS: use "
                          "NAMESPACE for --namespace, DEFINES for -D and OUTPUT_DIR for -o (--emit and --check "
                          "write no library)")
    endif()
  endforeach()

  # Each DEFINES entry is NAME=VALUE; shardc checks the value, we only check the shape early
  # so that a typo points at the CMakeLists.txt rather than at a failing build step.
  set(define_flags "")
  foreach(define IN LISTS ARG_DEFINES)
    if(define MATCHES "^([A-Za-z_][A-Za-z0-9_]*)=$")
      message(FATAL_ERROR "shardc_add_library(${NAME}): DEFINES entry '${define}' gives ${CMAKE_MATCH_1} an empty value "
                          "(is the variable it came from set?)")
    endif()
    if(NOT define MATCHES "^[A-Za-z_][A-Za-z0-9_]*=.+$")
      message(FATAL_ERROR "shardc_add_library(${NAME}): DEFINES entry '${define}' is not NAME=VALUE (a misspelt keyword?)")
    endif()
    string(REGEX REPLACE "^[^=]+=" "" value "${define}")
    string(TOUPPER "${value}" value)
    string(REGEX REPLACE "=.*$" "" const_name "${define}")
    if(value MATCHES "^(ON|YES|TRUE|Y)$")
      set(define "${const_name}=true")
    elseif(value MATCHES "^(OFF|NO|FALSE|N)$")
      set(define "${const_name}=false")
    endif()
    list(APPEND define_flags -D "${define}")
  endforeach()

  # Templates: a change must regenerate. In this tree they are source files; an installed
  # shardc either embeds them (then depending on the executable covers them) or reads them
  # from SHARDC_TEMPLATE_DIR.
  set(template_files "")
  if(SHARDC_TEMPLATE_DIR AND IS_DIRECTORY "${SHARDC_TEMPLATE_DIR}")
    file(GLOB_RECURSE template_files CONFIGURE_DEPENDS "${SHARDC_TEMPLATE_DIR}/*")
  endif()

  set(namespace_flags "")
  if(ARG_NAMESPACE)
    list(APPEND namespace_flags --namespace "${ARG_NAMESPACE}")
  endif()

  set(generated_sources "")
  set(generated_headers "")
  set(seen_modules "")
  foreach(source IN LISTS ARG_SOURCES)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE
               OUTPUT_VARIABLE source_path)
    if(NOT source_path MATCHES "\\.shard$")
      message(FATAL_ERROR "shardc_add_library(${NAME}): source '${source}' is not a .shard file "
                          "(a misspelt keyword? shardc_add_library takes ${keywords})")
    endif()
    get_source_file_property(generated_source "${source_path}" GENERATED)
    # A relative source that is not in the source folder may be generated in the build folder
    # (add_custom_command's OUTPUT gen.shard), where add_library would look for it too.
    if(NOT EXISTS "${source_path}" AND NOT generated_source AND NOT IS_ABSOLUTE "${source}")
      cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE
                 OUTPUT_VARIABLE built_path)
      get_source_file_property(generated_source "${built_path}" GENERATED)
      if(generated_source OR EXISTS "${built_path}")
        set(source_path "${built_path}")
      endif()
    endif()
    if(NOT EXISTS "${source_path}" AND NOT generated_source)
      message(FATAL_ERROR "shardc_add_library(${NAME}): source '${source}' does not exist (looked for ${source_path})")
    endif()
    cmake_path(GET source_path FILENAME file_name)
    string(REGEX REPLACE "\\.shard$" "" module "${file_name}")
    string(MAKE_C_IDENTIFIER "${module}" module)
    if(module IN_LIST seen_modules)
      message(FATAL_ERROR "shardc_add_library(${NAME}): two sources give the module name '${module}'; "
                          "their generated files would overwrite each other")
    endif()
    list(APPEND seen_modules "${module}")

    set(header "${ARG_OUTPUT_DIR}/${module}.shard.h")
    set(implementation "${ARG_OUTPUT_DIR}/${module}.shard.cpp")
    # Two libraries writing the same files (one OUTPUT_DIR, one module name) would otherwise
    # stop at CMake's own "already has a custom rule" error, which names neither.
    get_property(owner GLOBAL PROPERTY "SHARDC_GENERATES_${header}")
    if(owner)
      message(FATAL_ERROR "shardc_add_library(${NAME}): ${header} is generated by library '${owner}' already; "
                          "give one of them another OUTPUT_DIR")
    endif()
    set_property(GLOBAL PROPERTY "SHARDC_GENERATES_${header}" "${NAME}")
    # shardc leaves a file whose text is unchanged untouched, so that an edit that does not
    # change the C++ recompiles nothing under Ninja (it restats outputs). Make does not restat:
    # it saw those untouched outputs older than their inputs and ran shardc on every build. The
    # stamp, touched after each run, is the first output, which Make compares with the inputs.
    set(stamp "${ARG_OUTPUT_DIR}/${module}.shard.stamp")
    add_custom_command(
      OUTPUT "${stamp}" "${header}" "${implementation}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${ARG_OUTPUT_DIR}"
      COMMAND shardc::shardc "${source_path}" ${define_flags} ${namespace_flags} ${ARG_OPTIONS} -o "${ARG_OUTPUT_DIR}"
      COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
      DEPENDS "${source_path}" shardc::shardc ${template_files}
      COMMENT "shardc (${NAME}): generating ${module}.shard.h/.cpp from ${file_name}"
      VERBATIM)
    list(APPEND generated_headers "${header}")
    list(APPEND generated_sources "${implementation}")
  endforeach()

  add_library(${NAME} STATIC ${generated_sources} ${generated_headers})
  foreach(dir IN LISTS include_dirs)
    target_include_directories(${NAME} PUBLIC "$<BUILD_INTERFACE:${dir}>")
  endforeach()
  target_link_libraries(${NAME} PUBLIC shardc::runtime)
  # Generated code includes "shardgen_prelude.h": installed beside the runtime's headers, and
  # in this tree on the include path of codegen/'s shardc::prelude.
  if(TARGET shardc::prelude)
    target_link_libraries(${NAME} PUBLIC shardc::prelude)
  endif()
  target_compile_features(${NAME} PUBLIC cxx_std_20)
  set_target_properties(${NAME} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  # A project-wide CMAKE_CXX_CLANG_TIDY (or cppcheck, iwyu, cpplint) would lint code its users
  # cannot edit, and with --warnings-as-errors fail their build in it.
  set_target_properties(${NAME} PROPERTIES CXX_CLANG_TIDY "" CXX_CPPCHECK "" CXX_INCLUDE_WHAT_YOU_USE "" CXX_CPPLINT "")
  # Where the generated files are, for users who want to read or install them.
  set_target_properties(${NAME} PROPERTIES
    SHARDC_OUTPUT_DIR "${ARG_OUTPUT_DIR}"
    SHARDC_GENERATED_HEADERS "${generated_headers}")
endfunction()

cmake_policy(POP)
