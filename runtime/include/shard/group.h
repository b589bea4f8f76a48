// Named mesh axes and the device groups they form. A collective over axes (a, b) runs within
// each group of devices that share every other mesh coordinate; inside a group, devices are
// ranked by their (a, b) coordinates linearised in the order the names are given (a major),
// as JAX's axis_index(('a','b')) = a * size(b) + b.
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "shard/mesh.h"

namespace shard {

// A short list of axis names, built without allocation from literals: {"dp"}, {"tp", "dp"}.
// It refers to the strings it was given, which must outlive it (a call's duration).
class Axes {
 public:
  static constexpr int kMaxAxes = 16;  // the language allows 16 mesh axes (docs/language.md 13.3)
  Axes() = default;
  Axes(std::initializer_list<std::string_view> names);
  Axes(const char* name) : Axes({std::string_view(name)}) {}            // NOLINT: implicit on purpose
  Axes(std::string_view name) : Axes({name}) {}                          // NOLINT
  Axes(const std::string& name) : Axes({std::string_view(name)}) {}      // NOLINT
  Axes(const std::vector<std::string>& names);                           // NOLINT

  int size() const { return count_; }
  bool empty() const { return count_ == 0; }
  std::string_view operator[](int i) const { return names_[static_cast<std::size_t>(i)]; }
  const std::string_view* begin() const { return names_.data(); }
  const std::string_view* end() const { return names_.data() + count_; }
  std::string to_string() const;  // "dp" or "(tp,dp)"

 private:
  void push(std::string_view name);
  std::array<std::string_view, kMaxAxes> names_{};
  int count_ = 0;
};

// The devices taking part with one device in a collective over some axes.
struct Group {
  std::vector<int> members;  // global device ids, in rank order
  int rank = 0;              // this device's position in `members`
  std::string axes;          // for messages: "dp", "(tp,dp)"
  int size() const { return static_cast<int>(members.size()); }
};

// The group of `device` for a collective over `axes` of `mesh`. Throws ArgumentError for an
// unknown axis or an axis named twice.
Group make_group(const Mesh& mesh, const Axes& axes, int device);
// Product of the named axes' sizes (JAX's axis_size).
int axes_size(const Mesh& mesh, const Axes& axes);
// The device's rank along the axes (JAX's axis_index).
int axes_index(const Mesh& mesh, const Axes& axes, int device);

}  // namespace shard
