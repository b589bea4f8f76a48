#include "shard/errors.h"

#include <cstdio>
#include <cstdlib>

namespace shard {

DeviceError::DeviceError(int device, const std::string& message)
    : std::runtime_error("device " + std::to_string(device) + ": " + message),
      device_(device),
      message_(message) {}

void internal_error(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "internal runtime error at %s:%d: %s\n", file, line, what.c_str());
  std::abort();
}

}  // namespace shard
