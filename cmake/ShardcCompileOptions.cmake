# Warnings and sanitizers shared by every target of the project.
add_library(shardc_compile_options INTERFACE)
target_compile_options(shardc_compile_options INTERFACE
  -Wall -Wextra -Wpedantic -Wno-unused-parameter)

if(SHARDC_SANITIZE)
  add_compile_options(-fsanitize=${SHARDC_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SHARDC_SANITIZE})
endif()
