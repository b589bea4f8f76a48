// Where a long device body is cut into functions of its own.
//
// g++'s time on one function grows much faster than its length: at -O2 its points-to
// analysis took 35 s on a body of 875 lines and 10 min on 2,075 lines (unrolled loops and
// inlined fns make such bodies). So a body of more than `part_size` instructions is emitted
// as a row of calls, one per part of about that many instructions, each a function of its
// own: build time grows linearly with the body.
//
//   std::tuple<Tensor> f_device(shard::Device& dev, const Tensor& in0) {
//     const Tensor& x_0 = in0;
//     Tensor y_401;
//     f_device_part1(dev, x_0, y_401);     // reads x_0, defines y_401
//     Tensor y_801;
//     f_device_part2(dev, y_401, y_801);   // moves from y_401, defines y_801
//     return {std::move(y_801)};
//   }
//
// The caller keeps the parameters' bindings and declares every value a part defines that a
// later part or the return needs (a collective started in one part and waited for in another
// included, with the block it reads); parts take what they name by reference. A cut is made
// only where no window (a k::View into a block) is alive across it: a window stays inside
// one part.
#pragma once

#include <cstddef>
#include <vector>

#include "codegen/ir.h"
#include "codegen/last_use.h"

namespace shardc::codegen {

struct BodyPart {
  std::size_t begin = 0, end = 0;  // instructions [begin, end) of the body
  // Values defined before the part that it names, in id order, and for each whether the part
  // moves from or releases it (a Tensor& parameter rather than a const one). The caller hands
  // an alias on as its root.
  std::vector<ValueId> inputs;
  std::vector<bool> moved_from;
  // Values the part defines that a later part or the return needs, in id order: the caller
  // declares them and the part assigns them.
  std::vector<ValueId> outputs;
};

class BodyParts {
 public:
  // The parts of f's body, each of `part_size` instructions besides parameters (more where a
  // window is alive at the cut); none when the body is not longer than that or has nowhere
  // to cut.
  BodyParts(const Function& f, const LastUses& uses, std::size_t part_size);

  // The parts in body order. The caller binds every parameter (the param instructions,
  // wherever the scheduler put them); a part's range skips them.
  const std::vector<BodyPart>& parts() const { return parts_; }
  // Whether `v` is declared by the caller and assigned in its part.
  bool declared_by_caller(ValueId v) const { return declared_by_caller_.at(static_cast<std::size_t>(v)); }

 private:
  std::vector<BodyPart> parts_;
  std::vector<bool> declared_by_caller_;
};

}  // namespace shardc::codegen
