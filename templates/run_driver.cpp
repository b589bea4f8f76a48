// The driver program of `shardc run`: compiled together with one generated module, it calls
// one of the module's functions on the inputs shardc wrote, times it, and writes the results
// back for shardc to compare with the reference evaluator. Placeholder-free: the module is
// chosen on the compiler's command line:
//   -DSHARDC_RUN_HEADER='"NAME.shard.h"' -DSHARDC_RUN_NAMESPACE=shardgen::NAME
//
// Usage: driver DIR FUNCTION REPEAT
//   reads  DIR/in_<i>.bin   (row-major bytes of parameter i, in its global type)
//   writes DIR/out_<i>.bin  (row-major bytes of result i)
//          DIR/out.txt      (one line per result: its type as JAX prints it; then `time_ms T`,
//                            the median time of one call over REPEAT calls after a warm-up)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include SHARDC_RUN_HEADER

namespace gen = SHARDC_RUN_NAMESPACE;

namespace {

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: " << argv[0] << " DIR FUNCTION REPEAT\n";
    return 2;
  }
  const std::string dir = argv[1], name = argv[2];
  const int repeat = std::max(1, std::stoi(argv[3]));
  try {
    std::vector<gen::FunctionInfo> functions = gen::all_functions();
    auto it = std::find_if(functions.begin(), functions.end(), [&](const auto& f) { return f.name == name; });
    if (it == functions.end()) throw std::runtime_error("no function " + name + " in the generated module");
    std::vector<shard::ArrayType> types = it->param_types();
    // Enough devices for the function's mesh (which may start past device 0), and at least 8,
    // as the tests run them.
    shard::Runtime rt{std::max(it->mesh().end_device(), 8)};
    std::vector<shard::Array> args;
    for (std::size_t i = 0; i < types.size(); ++i) {
      std::vector<char> bytes = read_bytes(dir + "/in_" + std::to_string(i) + ".bin");
      std::size_t expected = static_cast<std::size_t>(shard::shape_numel(types[i].shape)) * shard::dtype_size(types[i].dtype);
      if (bytes.size() != expected)
        throw std::runtime_error("in_" + std::to_string(i) + ".bin has " + std::to_string(bytes.size()) +
                                 " bytes, expected " + std::to_string(expected));
      args.push_back(shard::Array::from_host(rt, types[i], bytes.data()));
    }
    std::vector<shard::Array> results = it->call(rt, args);  // warm-up: primitives are created here
    std::vector<double> times;
    for (int r = 0; r < repeat; ++r) {
      auto began = std::chrono::steady_clock::now();
      results = it->call(rt, args);
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count());
    }
    std::sort(times.begin(), times.end());
    std::ofstream meta(dir + "/out.txt");
    for (std::size_t i = 0; i < results.size(); ++i) {
      const shard::ArrayType& t = results[i].type();
      std::vector<char> bytes(static_cast<std::size_t>(shard::shape_numel(t.shape)) * shard::dtype_size(t.dtype));
      results[i].to_host(bytes.data());
      std::ofstream(dir + "/out_" + std::to_string(i) + ".bin", std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      meta << t.to_string() << "\n";
    }
    meta << "time_ms " << times[times.size() / 2] << "\n";
    return meta ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 1;
  }
}
