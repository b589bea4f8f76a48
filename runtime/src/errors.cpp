#include "shard/errors.h"

#include <cstdio>
#include <cstdlib>

namespace shard {

namespace {
// Built with append: GCC 12 warns falsely (-Wrestrict, PR 105329) on chained operator+ here.
std::string device_prefixed(int device, const std::string& message) {
  std::string s = "device ";
  s.append(std::to_string(device)).append(": ").append(message);
  return s;
}
}  // namespace

DeviceError::DeviceError(int device, const std::string& message)
    : std::runtime_error(device_prefixed(device, message)), device_(device), message_(message) {}

void internal_error(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "internal runtime error at %s:%d: %s\n", file, line, what.c_str());
  std::abort();
}

}  // namespace shard
