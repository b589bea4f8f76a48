// The second error channel: broken invariants inside the compiler. These stay on in release
// builds. They throw InternalError, which the driver (and parse()) turn into an
// "internal compiler error" diagnostic instead of a crash.
#pragma once

#include <stdexcept>
#include <string>

namespace shardc {

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void internal_error(const char* file, int line, const std::string& message);

}  // namespace shardc

#define SHARDC_ASSERT(cond, message)                                              \
  do {                                                                            \
    if (!(cond)) ::shardc::internal_error(__FILE__, __LINE__,                     \
                                          std::string("assertion `" #cond "` failed: ") + (message)); \
  } while (false)
