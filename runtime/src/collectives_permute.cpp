// ppermute, its ring-shift form and pshuffle.
#include <string>

#include "collective_plan.h"
#include "shard/errors.h"

namespace shard {

namespace {

// As JAX prints the perm it binds: a tuple of pairs, ((0, 1), (1, 0)).
std::string perm_string(std::span<const std::pair<int, int>> perm) {
  std::string s = "(";
  for (std::size_t i = 0; i < perm.size(); ++i)
    s += (i ? ", (" : "(") + std::to_string(perm[i].first) + ", " + std::to_string(perm[i].second) + ")";
  return s + (perm.size() == 1 ? ",)" : ")");
}

detail::Plan permute_plan(Device& dev, const Tensor& x, const Axes& axes, std::span<const std::pair<int, int>> perm) {
  detail::Plan plan;
  plan.group = &dev.group(axes);
  const int n = plan.group->size();
  std::vector<char> source_seen(n, 0), destination_seen(n, 0);
  for (const auto& [source, destination] : perm) {
    if (source < 0 || source >= n || destination < 0 || destination >= n)
      throw ArgumentError("ppermute permutation " + perm_string(perm) + " names a rank outside [0, " + std::to_string(n) +
                          ") of axes " + plan.group->axes);
    if (source_seen[source]++ || destination_seen[destination]++)
      throw ArgumentError("ppermute sources and destinations must be unique, got " + perm_string(perm) + ".");
  }
  plan.op.kind = CollectiveKind::permute;
  plan.result_dtype = plan.wire_dtype = x.dtype();
  plan.result_shape = x.shape();
  plan.perm.assign(perm.begin(), perm.end());
  return plan;
}

Permutation shift_perm(int n, int shift) {
  Permutation perm(n);
  // Reduced first: j + shift overflows int for a shift near INT_MAX.
  const int s = shift % n;
  for (int j = 0; j < n; ++j) perm[j] = {j, ((j + s) % n + n) % n};
  return perm;
}

}  // namespace

Tensor ppermute(Device& dev, const Tensor& x, const Axes& axes, std::span<const std::pair<int, int>> perm) {
  auto plan = permute_plan(dev, x, axes, perm);
  return detail::run_plan(dev, x, plan);
}
void ppermute(Device& dev, const Tensor& x, const Axes& axes, std::span<const std::pair<int, int>> perm, Tensor& out) {
  auto plan = permute_plan(dev, x, axes, perm);
  detail::run_plan_into(dev, x, plan, out, "ppermute");
}
Tensor ppermute_shift(Device& dev, const Tensor& x, const Axes& axes, int shift) {
  return ppermute(dev, x, axes, shift_perm(dev.axis_size(axes), shift));
}
void ppermute_shift(Device& dev, const Tensor& x, const Axes& axes, int shift, Tensor& out) {
  ppermute(dev, x, axes, shift_perm(dev.axis_size(axes), shift), out);
}
Pending start_ppermute(Device& dev, const Tensor& x, const Axes& axes, std::span<const std::pair<int, int>> perm) {
  return detail::start_plan(dev, x, permute_plan(dev, x, axes, perm));
}
Pending start_ppermute_shift(Device& dev, const Tensor& x, const Axes& axes, int shift) {
  return start_ppermute(dev, x, axes, shift_perm(dev.axis_size(axes), shift));
}
Tensor pshuffle(Device& dev, const Tensor& x, const Axes& axes, std::span<const int> perm) {
  Permutation pairs(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) pairs[i] = {perm[i], static_cast<int>(i)};
  return ppermute(dev, x, axes, pairs);
}

}  // namespace shard
