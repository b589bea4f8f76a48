// "[offset, offset + size)" for the errors of ragged_all_to_all, whose offsets and sizes are
// values that may be anything: the end is written as a sum when computing it would overflow.
#pragma once

#include <cstdint>
#include <string>

namespace shard::detail {

inline std::string row_range(std::int64_t offset, std::int64_t size) {
  // Appended piece by piece: g++ 12 warns (-Wrestrict, a false positive) on `"[" + ... + ")"`.
  std::string text = "[";
  text += std::to_string(offset);
  text += ", ";
  std::int64_t end = 0;
  if (__builtin_add_overflow(offset, size, &end)) {
    text += std::to_string(offset);
    text += " + ";
    text += std::to_string(size);
  } else {
    text += std::to_string(end);
  }
  text += ")";
  return text;
}

}  // namespace shard::detail
