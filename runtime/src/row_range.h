// The row ranges of ragged_all_to_all, whose offsets and sizes are values that may be anything:
// checked and written without computing `offset + size`, which may overflow.
#pragma once

#include <cstdint>
#include <string>

namespace shard::detail {

// Whether rows [offset, offset + size) lie within a block of `rows` rows.
inline bool rows_within(std::int64_t offset, std::int64_t size, std::int64_t rows) {
  return offset >= 0 && size >= 0 && offset <= rows && size <= rows - offset;
}

// "[offset, offset + size)", with the end written as a sum when computing it would overflow.
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
