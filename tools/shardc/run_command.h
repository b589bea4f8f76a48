// `shardc run FILE.shard [--func NAME] [--repeat N] [-D NAME=VALUE] [--print] [--keep] [--atol X]`:
// compiles the file, builds the generated code with the system compiler against this build's
// runtime (paths in the generated run_config.h), runs each function on the evaluator's
// deterministic inputs, and compares every result with the reference evaluator (integers
// exactly; floats within 1e-4*|r| + 1e-5*max|r| + atol, atol 0 unless --atol). Prints each result's type, a digest, the
// max absolute and normwise errors, and the median time per call. Exit 0 when all match, 1 on
// errors in the input or a mismatch, 2 on usage errors (a malformed -D, no file).
#pragma once

#include <string>
#include <vector>

namespace shardc {

// The options of `shardc run`, parsed by main.cpp (the one file that includes CLI11).
struct RunOptions {
  std::string file;
  std::vector<std::string> functions;  // empty: every function
  int repeat = 5;
  bool print = false;
  bool keep = false;
  double atol = 0;  // added to every float element's tolerance (compare_to_reference)
  std::vector<std::string> defines;  // NAME=VALUE, as given
};

int run_command(const RunOptions& options);

}  // namespace shardc
