// Which operands an instruction may consume: the emitter moves such an operand into a helper
// that reuses its storage (dynamic_update_slice and a binary op write in place, reshape keeps
// the buffer) instead of copying a block that nobody reads again.
//
// A value is a view of its *root*: `alias` and `pvary` emit `const Tensor& b = a;`, so the
// storage belongs to the first value of the chain. A *window* is a view too: a slice (that
// keeps every dim), dynamic_slice, dynamic index or reshape of a block, whose every reader is
// a plain 2-D matmul einsum (`ab,bc->ac`, operands of the result's dtype) or a further window,
// is emitted as a k::View into its operand's block, which the matmul reads in place (the ring
// algorithms slice a row chunk out of x at every step; a copy of it cost as much as the
// permute). An operand may be consumed when its root
//  - is owned by the function (not a parameter, which the caller owns),
//  - is read by no later instruction through any of its names, is not a result, and is not
//    the operand of a started collective still in flight (a collective reads its operand in
//    place until its wait: the wait counts as a use),
//  - and appears only once among the instruction's operands.
#pragma once

#include <vector>

#include "codegen/ir.h"

namespace shardc::codegen {

class LastUses {
 public:
  explicit LastUses(const Function& f);

  // The value whose storage `v` names (itself unless `v` comes from alias/pvary or is a window).
  ValueId root(ValueId v) const { return root_.at(static_cast<std::size_t>(v)); }
  // Whether instruction `index` of the body moves from its operand `operand` (only binary ops,
  // reshapes and dynamic_update_slice take their first operand's block over).
  bool consumable(std::size_t index, std::size_t operand) const;
  // Whether `v` is a window: emitted as a view into its operand's block.
  bool is_window(ValueId v) const { return window_.at(static_cast<std::size_t>(v)); }
  // Whether result `i` of the function may be moved out: its root is owned and no other result
  // names it (a value returned twice is copied at each mention).
  bool result_movable(std::size_t i) const;
  // For a wait, the roots of the operands its collective read in place until then (the wait
  // does not name them); empty for any other instruction.
  const std::vector<ValueId>& waited_roots(std::size_t index) const { return waited_roots_.at(index); }
  // The owned roots whose blocks nothing needs after instruction `index`: read last there (or
  // made there and never read), not results, not moved from there, and not rank 0. The
  // emitter releases them right after it, so a body holds the blocks it still needs, not
  // every block it made.
  const std::vector<ValueId>& released_after(std::size_t index) const { return released_after_.at(index); }

 private:
  const Function& f_;
  std::vector<ValueId> root_;
  std::vector<bool> owned_;               // per value: a local Tensor the function owns
  std::vector<std::size_t> last_use_;     // per root: the last instruction reading it
  std::vector<bool> returned_;            // per root: a result of the function
  std::vector<bool> window_;              // per value: a window
  std::vector<std::vector<ValueId>> waited_roots_;    // per instruction
  std::vector<std::vector<ValueId>> released_after_;  // per instruction
};

}  // namespace shardc::codegen
