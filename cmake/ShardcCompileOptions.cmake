# Warnings, sanitizers and the OpenMP library shared by every target of the project.
add_library(shardc_compile_options INTERFACE)
target_compile_options(shardc_compile_options INTERFACE
  -Wall -Wextra -Wpedantic -Wno-unused-parameter)

# The compiler's own code (frontend/, codegen/, tools/shardc/, each calls this first) is built
# at -O2 in a Release build; the runtime and the evaluator keep the build type's -O3 for their
# loops. shardc spends tens of milliseconds on a file either way, and -O2 compiles it a sixth
# faster (emit_cpp.cpp: 15.9 s -> 12.5 s; six of its largest files: 45 s -> 38 s).
macro(shardc_optimize_for_build_time)
  add_compile_options($<$<CONFIG:Release>:-O2>)
endmacro()

# Fuzzing builds (fuzz/, clang only): every object gets the sanitizers that turn memory and
# undefined-behaviour bugs into crashes; only the fuzz executable links libFuzzer's main
# (-fsanitize=fuzzer, in fuzz/CMakeLists.txt).
if(SHARDC_FUZZ)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()

# Called first thing in the folders whose code the fuzzer runs (frontend/, codegen/, fuzz/):
# their objects also get libFuzzer's coverage instrumentation, which guides it through the
# parser, checker and code generator. The runtime, evaluator and tests, which it never runs, go
# without: the instrumentation costs a fifth of their compile time under the sanitizers.
macro(shardc_instrument_for_fuzzing)
  if(SHARDC_FUZZ)
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
endmacro()

if(SHARDC_SANITIZE)
  add_compile_options(-fsanitize=${SHARDC_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SHARDC_SANITIZE})
endif()

# The runtime's static libraries link this privately; CMake still records it (as LINK_ONLY,
# which carries no flags to consumers), so the installed package must name it too.
set_target_properties(shardc_compile_options PROPERTIES EXPORT_NAME compile_options)
install(TARGETS shardc_compile_options EXPORT shardcTargets)

# The OpenMP library the runtime and the kernels link, by path (runtime/CMakeLists.txt says why
# not OpenMP::OpenMP_CXX): the one the compiler's flags chose, followed to the shared object's
# soname link. GCC's libgomp.so in gcc/x86_64-linux-gnu/12/ is a link to libgomp.so.1 of the
# libgomp1 package, which oneDNN needs anyway, so the installed package (shardcTargets.cmake,
# shardc-runtime.pc) does not depend on this GCC version's development folder. pthread is left
# out: Threads::Threads links it (FindOpenMP names the static libpthread.a here).
find_package(OpenMP REQUIRED COMPONENTS CXX)
set(SHARDC_OPENMP_LIBRARIES "")
foreach(lib IN LISTS OpenMP_CXX_LIBRARIES)
  if(lib MATCHES "pthread")
    continue()
  endif()
  file(REAL_PATH "${lib}" real_lib)
  if(real_lib MATCHES "^(.*\\.so\\.[0-9]+)\\..*$")
    set(soname_link "${CMAKE_MATCH_1}")  # (read before the next test overwrites it)
    if(EXISTS "${soname_link}")
      set(real_lib "${soname_link}")
    endif()
  endif()
  list(APPEND SHARDC_OPENMP_LIBRARIES "${real_lib}")
endforeach()
