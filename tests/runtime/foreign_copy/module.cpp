// A plugin with its own static copy of the runtime, kept to itself (-Wl,--exclude-libs,ALL): it
// runs a Runtime that the test executable's copy created, which must fail with UnsupportedError
// (it waited for ever before), and a Runtime of its own, which must work.
#include <string>

#include "shard/shard.h"

namespace {
std::string last_message;
}

// 0: ran; 1: UnsupportedError (its message in shard_module_message); 2: another error.
extern "C" int shard_module_run(shard::Runtime* rt) {
  try {
    const shard::Mesh mesh({{"x", 2}});
    rt->run(mesh, [](shard::Device&) {});
    return 0;
  } catch (const shard::UnsupportedError& e) {
    last_message = e.what();
    return 1;
  } catch (const std::exception& e) {
    last_message = e.what();
    return 2;
  }
}

extern "C" int shard_module_run_own() {
  shard::Runtime rt{2};
  return shard_module_run(&rt);
}

extern "C" const char* shard_module_message() { return last_message.c_str(); }
