// The text of templates/*.mustache, embedded at build time (codegen/embed_templates.cmake
// writes embedded_templates.cpp from the real files, so editing a template rebuilds shardc).
#pragma once

#include <string>

namespace shardc::codegen::templates {

const std::string& module_header();  // templates/module.shard.h.mustache
const std::string& module_source();  // templates/module.shard.cpp.mustache

}  // namespace shardc::codegen::templates
