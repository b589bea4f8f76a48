// Several copies of the runtime's code in one process (a plugin linked with the static runtime
// and -Wl,--exclude-libs,ALL): a Runtime is run only through the copy that created it, and any
// other copy says so instead of waiting for ever (foreign_copy/module.cpp).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "shard/shard.h"

namespace {

// Never closed, as plugins usually are not: the runtime's process-wide objects (the block
// cache) live in the module's copy, and unmapping it would lose them (LeakSanitizer says so).
struct Module {
  void* handle = dlopen(SHARD_FOREIGN_COPY_MODULE, RTLD_NOW | RTLD_LOCAL);
  template <class F>
  F* get(const char* name) const {
    return reinterpret_cast<F*>(dlsym(handle, name));
  }
};

TEST(RuntimeCopies, ARuntimeRunThroughAnotherCopyIsAnErrorNotAHang) {
  Module module;
  ASSERT_NE(module.handle, nullptr) << dlerror();
  auto* run = module.get<int(shard::Runtime*)>("shard_module_run");
  auto* run_own = module.get<int()>("shard_module_run_own");
  auto* message = module.get<const char*()>("shard_module_message");
  ASSERT_TRUE(run && run_own && message);

  shard::Runtime rt{2};
  const shard::Mesh mesh({{"x", 2}});
  rt.run(mesh, [](shard::Device&) {});  // the device threads have run and may sleep now
  EXPECT_EQ(run(&rt), 1) << message();
  EXPECT_NE(std::string(message()).find("created by another copy of the shard runtime"), std::string::npos) << message();
  EXPECT_NO_THROW(rt.run(mesh, [](shard::Device&) {}));  // still usable by its own copy
  EXPECT_EQ(run_own(), 0) << message();                  // the plugin's own Runtime works
}

}  // namespace
