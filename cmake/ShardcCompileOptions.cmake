# Warnings and sanitizers shared by every target of the project.
add_library(shardc_compile_options INTERFACE)
target_compile_options(shardc_compile_options INTERFACE
  -Wall -Wextra -Wpedantic -Wno-unused-parameter)

# Fuzzing builds (fuzz/, clang only): every object gets libFuzzer's coverage instrumentation
# and the sanitizers that turn memory and undefined-behaviour bugs into crashes; only the fuzz
# executable links libFuzzer's main (-fsanitize=fuzzer, in fuzz/CMakeLists.txt).
if(SHARDC_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()

if(SHARDC_SANITIZE)
  add_compile_options(-fsanitize=${SHARDC_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SHARDC_SANITIZE})
endif()

# The runtime's static libraries link this privately; CMake still records it (as LINK_ONLY,
# which carries no flags to consumers), so the installed package must name it too.
set_target_properties(shardc_compile_options PROPERTIES EXPORT_NAME compile_options)
install(TARGETS shardc_compile_options EXPORT shardcTargets)
