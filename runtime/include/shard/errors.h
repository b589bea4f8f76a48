// The runtime's error types. Every bad input reaches the caller as one of these, never a crash.
#pragma once

#include <stdexcept>
#include <string>

namespace shard {

// A call was made with arguments that do not fit each other (wrong mesh, bad axis name, ...).
class ArgumentError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A shape does not fit an operation (does not divide across a group, mismatched blocks, ...).
class ShapeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A device's part of a Runtime::run call failed; every device of that call ends with it.
class DeviceError : public std::runtime_error {
 public:
  DeviceError(int device, const std::string& message);
  int device() const { return device_; }         // the device that failed first
  const std::string& message() const { return message_; }  // its error's text, without the prefix

 private:
  int device_;
  std::string message_;
};

// This build of the runtime cannot do what was asked (e.g. run across MPI ranks: there is no
// MPI backend yet).
class UnsupportedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Internal invariant checks stay on in release builds.
[[noreturn]] void internal_error(const char* file, int line, const std::string& what);

}  // namespace shard

#define SHARD_ASSERT(cond, what)                                   \
  do {                                                              \
    if (!(cond)) ::shard::internal_error(__FILE__, __LINE__, what); \
  } while (0)
