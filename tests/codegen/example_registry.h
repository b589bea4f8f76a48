// The examples compiled into codegen_examples_test (the list is in CMakeLists.txt).
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "shard/shard.h"

using ParameterlessFunction = std::vector<shard::Array> (*)(shard::Runtime&);

struct ExampleEntry {
  const char* name;
  const char* source;   // the .shard file: its expect-* lines are the expectations
  const char* defines;  // the -D list it was generated with, comma-separated
  std::vector<std::pair<std::string, ParameterlessFunction>> (*functions)();
};

const std::vector<ExampleEntry>& all_examples();

// gtest prints a test parameter with this: the example's name.
inline void PrintTo(const ExampleEntry& e, std::ostream* os) { *os << e.name; }
