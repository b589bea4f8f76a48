// Consistency of the simulator's three views of a mesh over many meshes and every order of
// every subset of axes: block placement (blocks.cpp), group linearisation (mesh_groups.cpp)
// and the collectives must agree, as in JAX, whatever order the axis names are given in:
//   - axis_index((A...)) laid out as [n@(A...)] is arange(n);
//   - all_gather_invariant of x: [N@(A...)] over (A...), tiled, gives back x;
//   - ppermute(x, (A...), shift=1) of [N@(A...)] rolls the global array by one block.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "checked_source.h"
#include "evaluator/evaluate.h"
#include "evaluator/format_numpy.h"
#include "evaluator/ops_shape.h"

namespace shardc::eval {
namespace {

struct MeshCase {
  std::vector<std::pair<std::string, int>> axes;
};

std::string mesh_text(const MeshCase& m) {
  std::string s = "mesh m = [";
  for (std::size_t i = 0; i < m.axes.size(); ++i) s += (i ? ", " : "") + m.axes[i].first + ": " + std::to_string(m.axes[i].second);
  return s + "];\n";
}

// Every ordered selection of distinct axes (subsets in every order).
std::vector<std::vector<int>> orders(int n) {
  std::vector<std::vector<int>> out;
  for (int mask = 1; mask < (1 << n); ++mask) {
    std::vector<int> pick;
    for (int i = 0; i < n; ++i)
      if (mask & (1 << i)) pick.push_back(i);
    do out.push_back(pick);
    while (std::next_permutation(pick.begin(), pick.end()));
  }
  return out;
}

TEST(Layouts, GroupsBlocksAndCollectivesAgreeInEveryAxisOrder) {
  std::vector<MeshCase> meshes = {{{{"a", 1}}},
                                  {{{"a", 2}}},
                                  {{{"a", 8}}},
                                  {{{"a", 2}, {"b", 2}}},
                                  {{{"a", 4}, {"b", 2}}},
                                  {{{"a", 2}, {"b", 4}}},
                                  {{{"a", 2}, {"b", 1}, {"c", 3}}},
                                  {{{"a", 2}, {"b", 2}, {"c", 2}}}};
  int programs = 0;
  for (const MeshCase& m : meshes) {
    for (const auto& order : orders(static_cast<int>(m.axes.size()))) {
      std::string group = "(";
      std::int64_t n = 1;
      for (std::size_t k = 0; k < order.size(); ++k) {
        group += (k ? ", " : "") + m.axes[order[k]].first;
        n *= m.axes[order[k]].second;
      }
      group += order.size() == 1 ? ",)" : ")";
      std::string g = order.size() == 1 ? m.axes[order[0]].first : group;
      std::int64_t big = 3 * n;  // three elements per block
      std::ostringstream src;
      src << mesh_text(m)
          << "shard_map idx() -> i32[" << n << "@" << g << "] on m { return reshape(axis_index(" << g << "), (1,)); }\n"
          << "shard_map gather(x: i32[" << big << "@" << g << "]) -> i32[" << big << "] on m {\n"
          << "  return all_gather_invariant(x, " << g << ", axis=0, tiled=true);\n}\n"
          << "shard_map shift(x: i32[" << big << "@" << g << "]) -> i32[" << big << "@" << g << "] on m {\n"
          << "  return ppermute(x, " << g << ", shift=1);\n}\n";
      SCOPED_TRACE(src.str());
      auto s = testing::check_source(src.str());
      ASSERT_TRUE(s.module) << s.errors;
      HostTensor index = evaluate(*s.module, "idx", {})[0];
      EXPECT_TRUE(identical(index, arange(0, static_cast<double>(n), 1, DType::i32))) << format_numpy(index);
      HostTensor x = arange(100, 100 + static_cast<double>(big), 1, DType::i32);
      EXPECT_TRUE(identical(evaluate(*s.module, "gather", {x})[0], x));
      EXPECT_TRUE(identical(evaluate(*s.module, "shift", {x})[0], roll(x, 3, 0)));
      ++programs;
    }
  }
  EXPECT_EQ(programs, 1 + 1 + 1 + 4 + 4 + 4 + 15 + 15);
}

}  // namespace
}  // namespace shardc::eval
