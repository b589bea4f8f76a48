#include "frontend/check/rules_einsum.h"

#include <map>
#include <optional>

#include "frontend/check/dtype_rules.h"
#include "frontend/check/rules_elementwise.h"
#include "frontend/check/rules_reduce.h"
#include "frontend/check/sharding_spec.h"

namespace shardc::check {
namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// "j, k and l" for "jkl".
std::string join_letters(const std::string& letters) {
  std::string out;
  for (std::size_t i = 0; i < letters.size(); ++i)
    out += std::string(i == 0 ? "" : i + 1 == letters.size() ? " and " : ", ") + letters[i];
  return out;
}

// The letters an einsum contracts, in lhs order, each once: with one operand every letter it
// sums; with two, those both hold, which dot_general contracts (a letter one operand alone sums
// is summed first, as jnp.einsum does, its sharded axes all-reduced there).
std::string contracted_letters(const EinsumSpec& spec) {
  std::string out;
  for (char c : spec.inputs[0])
    if (spec.output.find(c) == std::string::npos && out.find(c) == std::string::npos &&
        (spec.inputs.size() == 1 || spec.inputs[1].find(c) != std::string::npos))
      out += c;
  return out;
}

}  // namespace

Result<EinsumSpec> parse_einsum(std::string_view text) {
  EinsumSpec spec;
  auto arrow = text.find("->");
  if (arrow == std::string_view::npos)
    return rule_error(ErrorClass::bad_argument, "einsum spec " + quoted(text) + " has no '->'",
                      {"write the output explicitly, e.g. \"bd,df->bf\""});
  std::string cur;
  auto bad = [&](char c) {
    // One byte of a multi-byte UTF-8 character would print as a broken character: name it instead.
    const std::string what = static_cast<unsigned char>(c) >= 0x80 ? "a non-ASCII character"
                                                                   : "an unexpected character '" + std::string(1, c) + "'";
    return rule_error(ErrorClass::bad_argument, "einsum spec " + quoted(text) + " has " + what,
                      {"use one ASCII letter (a-z, A-Z) per dimension, operands separated by ',' and '->' before "
                       "the output"});
  };
  for (char c : text.substr(0, arrow)) {
    if (c == ' ') continue;
    if (c == ',') {
      spec.inputs.push_back(cur);
      cur.clear();
    } else if (is_letter(c)) {
      cur += c;
    } else {
      return bad(c);
    }
  }
  spec.inputs.push_back(cur);
  for (char c : text.substr(arrow + 2)) {
    if (c == ' ') continue;
    if (!is_letter(c)) return bad(c);
    spec.output += c;
  }
  if (spec.inputs.size() > 2)
    return rule_error(ErrorClass::bad_argument, "einsum spec " + quoted(text) + " has more than two operands",
                      {"chain two-operand einsums instead"});
  auto no_repeats = [&](const std::string& s, std::string_view where) -> std::optional<RuleError> {
    for (std::size_t i = 0; i < s.size(); ++i)
      if (s.find(s[i], i + 1) != std::string::npos)
        return rule_error(ErrorClass::bad_argument,
                          "einsum spec " + quoted(text) + " repeats letter '" + std::string(1, s[i]) + "' in " +
                              std::string(where),
                          {"traces and diagonals are not supported; each letter names one dimension per operand"});
    return std::nullopt;
  };
  for (const auto& in : spec.inputs)
    if (auto e = no_repeats(in, "an operand")) return *e;
  if (auto e = no_repeats(spec.output, "the output")) return *e;
  for (char c : spec.output) {
    bool found = false;
    for (const auto& in : spec.inputs) found = found || in.find(c) != std::string::npos;
    if (!found)
      return rule_error(ErrorClass::bad_argument,
                        "einsum spec " + quoted(text) + ": output letter '" + std::string(1, c) +
                            "' appears in no operand");
  }
  return spec;
}

Result<Type> einsum_op(std::string_view text, const std::vector<Type>& ops,
                       const std::optional<std::vector<AxisList>>& out, bool sums_pending) {
  auto parsed = parse_einsum(text);
  if (!parsed) return parsed.error();
  const EinsumSpec& spec = *parsed;
  if (spec.inputs.size() != ops.size())
    return rule_error(ErrorClass::bad_argument, "einsum spec " + quoted(text) + " names " +
                                                    std::to_string(spec.inputs.size()) + " operands, but " +
                                                    std::to_string(ops.size()) + " were given");
  if (auto e = check_same_mesh(ops)) return *e;
  if (static_cast<int>(spec.output.size()) > kMaxRank)
    return rule_error(ErrorClass::limit, "einsum spec " + quoted(text) + " gives a result of rank " +
                                             std::to_string(spec.output.size()) + ", above the rank limit of " +
                                             std::to_string(kMaxRank));
  const Mesh* mesh = nullptr;
  bool local = false;
  AxisSet varying = 0;
  DTypeW dt{ops[0].dtype, ops[0].weak};
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Type& t = ops[i];
    if (t.kind != TypeKind::array)
      return rule_error(ErrorClass::bad_argument, "einsum operand " + std::to_string(i) + " must be an array, got " +
                                                      to_string(t), {}, static_cast<int>(i));
    if (static_cast<int>(spec.inputs[i].size()) != t.rank())
      return rule_error(ErrorClass::shape_mismatch,
                        "einsum spec " + quoted(text) + " gives operand " + std::to_string(i) + " " +
                            std::to_string(spec.inputs[i].size()) + " dimensions, but it has rank " +
                            std::to_string(t.rank()) + ": " + to_string(t),
                        {}, static_cast<int>(i));
    if (t.mesh) mesh = t.mesh;
    local = local || t.local;
    varying |= t.varying;
    if (i > 0) dt = promote(dt, {t.dtype, t.weak});
  }
  if (dt.dtype == DType::boolean) {
    // A product of bools is arithmetic on bool, as `*` of two bools is; a sum of one bool operand
    // counts in int32, as sum() does (language.md, sections 6 and 7).
    if (ops.size() > 1)
      return rule_error(ErrorClass::bad_argument,
                        "arithmetic on bool: einsum " + quoted(text) + " multiplies " + to_string(ops[0]) + " and " +
                            to_string(ops[1]),
                        {"convert with astype(x, i32) first"}, 0);
    if (spec.output.size() < spec.inputs[0].size()) dt = DTypeW{sum_dtype(DType::boolean), false};
  }
  // Sizes per letter must agree.
  std::map<char, std::int64_t> size;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    for (std::size_t k = 0; k < spec.inputs[i].size(); ++k) {
      char c = spec.inputs[i][k];
      std::int64_t s = ops[i].dims[k].size;
      auto [it, fresh] = size.emplace(c, s);
      if (!fresh && it->second != s)
        return rule_error(ErrorClass::shape_mismatch,
                          "einsum " + quoted(text) + ": dimension " + std::string(1, c) + " has size " +
                              std::to_string(it->second) + " in operand 0 and " + std::to_string(s) + " in operand " +
                              std::to_string(i),
                          {}, static_cast<int>(i));
    }
  }
  auto axes_of = [&](std::size_t op, char c) -> const AxisList* {
    auto k = spec.inputs[op].find(c);
    return k == std::string::npos ? nullptr : &ops[op].dims[k].axes;
  };

  std::vector<Dim> dims;
  for (char c : spec.output) dims.push_back(Dim{size[c], {}});
  if (local) {
    Type r = make_array(dt.dtype, std::move(dims), mesh);
    r.local = true;
    r.varying = varying;
    return r;
  }

  if (out) {
    if (out->size() != dims.size())
      return rule_error(ErrorClass::shape_mismatch, "out= gives " + std::to_string(out->size()) +
                                                        " dimensions, but einsum " + quoted(text) + " has rank " +
                                                        std::to_string(dims.size()));
    for (std::size_t i = 0; i < dims.size(); ++i) dims[i].axes = (*out)[i];
    Type r = make_array(dt.dtype, std::move(dims), mesh);
    if (auto e = validate_global(r, "out=")) return *e;
    return r;
  }

  // Batch and free dims of the output.
  for (std::size_t i = 0; i < spec.output.size(); ++i) {
    char c = spec.output[i];
    const AxisList* a = axes_of(0, c);
    const AxisList* b = ops.size() > 1 ? axes_of(1, c) : nullptr;
    if (a && b && *a != *b)
      return on_mesh(mesh, rule_error(ErrorClass::batch_mismatch,
                                      "einsum " + quoted(text) +
                                          " requires lhs batch dimensions and rhs batch dimensions to have the same "
                                          "sharding, got " + format_axes(*mesh, *a) + " and " + format_axes(*mesh, *b) +
                                          " for dimension " + std::string(1, c),
                                      {"a batch dimension pairs block i of one operand with block i of the other; "
                                       "reshard one operand so both are split the same way"}));
    dims[i].axes = a ? *a : *b;
  }
  // Contracting dims sharded on both sides: the result's sharding is ambiguous. Every such dim
  // is named, and the out= choices offered sum over all of their axes.
  if (ops.size() == 2 && !sums_pending) {
    std::string ambiguous;  // letters, in lhs order
    for (char c : spec.inputs[0]) {
      if (spec.output.find(c) != std::string::npos) continue;
      const AxisList* a = axes_of(0, c);
      const AxisList* b = axes_of(1, c);
      if (a && b && !a->empty() && !b->empty()) ambiguous += c;  // one side only: all-gathered, allowed
    }
    if (!ambiguous.empty()) {
      std::string where;
      bool same_on_both = true;
      AxisList summed;  // the axes every choice reduces over, in lhs order
      for (char c : ambiguous) {
        const AxisList& a = *axes_of(0, c);
        const AxisList& b = *axes_of(1, c);
        same_on_both = same_on_both && a == b;
        summed.insert(summed.end(), a.begin(), a.end());
        where += std::string(where.empty() ? "" : ", and dimension " + std::string(1, c) + ", which is ") +
                 (a == b ? "sharded over " + format_axes(*mesh, a) + " on both operands"
                         : "sharded over " + format_axes(*mesh, a) + " in the lhs and over " + format_axes(*mesh, b) +
                               " in the rhs");
      }
      std::vector<std::string> notes;
      if (!same_on_both) {
        // The all-reduce / reduce-scatter choices below would name one operand's axes only.
        const std::string which = ambiguous.size() == 1 ? "dimension " + ambiguous + " is"
                                                        : "dimensions " + join_letters(ambiguous) + " are";
        notes.push_back("give the result's sharding with out= (the lowering moves the data it needs), or reshard "
                        "one operand so that " + which + " split over none of its axes there (it is then "
                        "all-gathered, and no out= is needed)");
      } else {
        // The result dims keep their operands' axes, each mesh axis once (a later repeat, or a
        // summed axis, is dropped): out= then sums over `summed` by an all-reduce, or by a
        // reduce-scatter into the first free, divisible dim (else after the axes of the first
        // sharded one that still divides). Only choices that are valid shardings are offered.
        std::vector<Dim> kept = dims;
        AxisSet used = to_set(summed);
        for (Dim& d : kept) {
          AxisList axes;
          for (int axis : d.axes) {
            const AxisSet bit = AxisSet{1} << axis;
            if (used & bit) continue;
            axes.push_back(axis);
            used |= bit;
          }
          d.axes = std::move(axes);
        }
        auto valid = [&](const std::vector<Dim>& choice) {
          return !validate_global(make_array(dt.dtype, choice, mesh), "out=").has_value();
        };
        std::vector<std::string> choices;
        if (valid(kept))
          choices.push_back("out=" + format_spec(*mesh, kept) + " all-reduces over " + format_axes(*mesh, summed));
        const std::int64_t p = axes_product(*mesh, summed);
        std::optional<std::vector<Dim>> scattered;
        for (bool free_dims : {true, false}) {
          for (std::size_t i = 0; i < kept.size() && !scattered; ++i) {
            if (kept[i].axes.empty() != free_dims) continue;
            if (kept[i].size % (axes_product(*mesh, kept[i].axes) * p) != 0) continue;
            scattered = kept;
            (*scattered)[i].axes.insert((*scattered)[i].axes.end(), summed.begin(), summed.end());
          }
        }
        if (scattered && valid(*scattered))
          choices.push_back("out=" + format_spec(*mesh, *scattered) + " reduce-scatters over " +
                            format_axes(*mesh, summed));
        std::string note;
        for (const std::string& choice : choices) note += (note.empty() ? "" : "; ") + choice;
        if (!note.empty()) notes.push_back(note);
      }
      // JAX's message ends with the contracting dims' specs as Python tuples, in lhs order.
      auto python_spec = [&](std::size_t op, const std::string& letters) {
        std::string t = "(";
        for (std::size_t i = 0; i < letters.size(); ++i) {
          const AxisList& axes = *axes_of(op, letters[i]);
          std::string entry = axes.empty() ? "None" : "";
          for (std::size_t k = 0; k < axes.size(); ++k)
            entry += (k ? ", '" : "'") + mesh->axis_names.at(static_cast<std::size_t>(axes[k])) + "'";
          if (axes.size() > 1) entry = "(" + entry + ")";
          t += (i ? ", " : "") + entry;
        }
        return t + (letters.size() == 1 ? ",)" : ")");
      };
      const std::string both_sides = contracted_letters(spec);
      notes.push_back("JAX: Contracting dimensions are sharded and it is ambiguous how the output should be sharded. "
                      "Please specify the output sharding via the out_sharding parameter. Got lhs_contracting_spec=" +
                      python_spec(0, both_sides) + " and rhs_contracting_spec=" + python_spec(1, both_sides));
      return on_mesh(mesh, rule_error(ErrorClass::einsum_ambiguous,
                                      "einsum " + quoted(text) + " contracts dimension " +
                                          std::string(1, ambiguous[0]) +
                                          ", which is " + where + "; the result's sharding is ambiguous",
                                      std::move(notes)));
    }
  }
  Type r = make_array(dt.dtype, std::move(dims), mesh);
  // JAX lowers einsum, @ and matmul to dot_general, whose sharding rule reports this.
  if (auto e = check_result_axes(r, "dot_general", ops, /*out_can_fix=*/!sums_pending)) return *e;
  return r;
}

Result<Type> unreduced_einsum_op(std::string_view text, const std::vector<Type>& ops, const AxisList& unreduced,
                                 const std::optional<std::vector<AxisList>>& out) {
  auto parsed = parse_einsum(text);
  if (!parsed) return parsed.error();
  const EinsumSpec& spec = *parsed;
  bool shapes_ok = spec.inputs.size() == ops.size();
  for (std::size_t i = 0; shapes_ok && i < ops.size(); ++i)
    shapes_ok = ops[i].kind == TypeKind::array && !ops[i].local &&
                static_cast<int>(spec.inputs[i].size()) == ops[i].rank();
  // A letter's size must agree across the operands before its shardings mean anything.
  std::map<char, std::int64_t> letter_size;
  for (std::size_t i = 0; shapes_ok && i < ops.size(); ++i)
    for (std::size_t k = 0; shapes_ok && k < spec.inputs[i].size(); ++k)
      shapes_ok = letter_size.emplace(spec.inputs[i][k], ops[i].dims[k].size).first->second == ops[i].dims[k].size;
  if (!shapes_ok) return einsum_op(text, ops, out);  // its error
  const Mesh* mesh = ops[0].mesh;
  auto spec_of = [&](std::size_t op, const std::string& letters) {
    std::vector<AxisList> axes;
    for (char c : letters) axes.push_back(ops[op].dims[spec.inputs[op].find(c)].axes);
    return axes;
  };
  auto spec_text = [&](const std::vector<AxisList>& axes) {
    std::string t = "(";
    for (std::size_t i = 0; i < axes.size(); ++i) t += (i ? ", " : "") + format_axes(*mesh, axes[i]);
    return t + (axes.size() == 1 ? ",)" : ")");
  };
  const std::string contracted = contracted_letters(spec);
  std::vector<AxisList> lhs_contracting;
  AxisSet contracting_axes = 0;
  for (char c : contracted) {
    std::vector<std::size_t> holders;
    for (std::size_t o = 0; o < ops.size(); ++o)
      if (spec.inputs[o].find(c) != std::string::npos) holders.push_back(o);
    const AxisList first = spec_of(holders[0], std::string(1, c))[0];
    for (std::size_t h : holders)
      if (spec_of(h, std::string(1, c))[0] != first) {
        std::string lhs_letters, rhs_letters;
        for (char k : contracted) {
          if (spec.inputs[0].find(k) != std::string::npos) lhs_letters += k;
          if (ops.size() > 1 && spec.inputs[1].find(k) != std::string::npos) rhs_letters += k;
        }
        return rule_error(ErrorClass::unsupported_sharding,
                          "lhs and rhs contracting dims should be sharded identically when out_sharding "
                          "provided to dot_general mentions unreduced_axes. Got lhs_contracting_spec=" +
                              spec_text(spec_of(0, lhs_letters)) + ", rhs_contracting_spec=" +
                              spec_text(ops.size() > 1 ? spec_of(1, rhs_letters) : std::vector<AxisList>{}),
                          {"(out_sharding's unreduced axes are shardc's unreduced=)"});
      }
    lhs_contracting.push_back(first);
    contracting_axes |= to_set(first);
  }
  // One operand: a reduction (JAX's reduce rule takes the out_sharding), whose unreduced axes
  // need only be among the summed dimensions' axes; the others are all-reduced.
  if (ops.size() == 1)
    if (auto e = check_pending_reduction("einsum " + quoted(text), ops[0], contracting_axes, to_set(unreduced)))
      return *e;
  if (ops.size() > 1 && to_set(unreduced) != contracting_axes)
    return rule_error(ErrorClass::unsupported_sharding,
                      "out_sharding's unreduced axes should be equal to the contracting specs. Got "
                      "unreduced axes=" +
                          format_axis_set(*mesh, to_set(unreduced)) +
                          " and contracting spec=" + spec_text(lhs_contracting),
                      {"unreduced= names exactly the mesh axes the contracted dimensions are sharded "
                       "over"});
  // The result's sharding is the one the operands give its dimensions: einsum's batch rule and
  // its illegal-result check, with the same wording as without unreduced=.
  auto r = einsum_op(text, ops, std::nullopt, /*sums_pending=*/true);
  if (!r) return r;
  std::vector<AxisList> natural;
  for (const Dim& d : r->dims) natural.push_back(d.axes);
  if (out && *out != natural)
    return rule_error(ErrorClass::unsupported_sharding,
                      "with unreduced=, out= must be the sharding the operands give the result, " + spec_text(natural) +
                          "; got " + spec_text(*out),
                      {"a limit of shardc: reshard the reduced result instead"});
  if (r->sharded_axes() & to_set(unreduced))
    return rule_error(ErrorClass::duplicate_type_axis, "dot_general operation with unreduced axes " +
                                                           format_axis_set(*mesh, to_set(unreduced)) +
                                                           " produces an illegally sharded result: " + to_string(*r) +
                                                           " also splits a dimension over them");
  Type t = *r;
  t.unreduced = to_set(unreduced);
  return t;
}

Result<std::string> matmul_spec(const Type& a, const Type& b) {
  if (a.rank() == 0 || b.rank() == 0)
    return rule_error(ErrorClass::shape_mismatch,
                      "@ needs operands of rank 1 or more, got " + to_string(a) + " and " + to_string(b),
                      {"use * to scale by a scalar"});
  // Every letter but m, k and n, the matrix dimensions: enough for the rank limit.
  const std::string batch_letters = "abcdefghijlopqrs";
  static_assert(kMaxRank - 2 <= 16);
  auto batch = [&](int n) { return batch_letters.substr(0, n); };
  int ra = a.rank(), rb = b.rank();
  if (ra == 1 && rb == 1) return std::string("k,k->");
  if (ra == 1) return "k" + std::string(",") + batch(rb - 2) + "kn->" + batch(rb - 2) + "n";
  if (rb == 1) return batch(ra - 2) + "mk,k->" + batch(ra - 2) + "m";
  int ba = ra - 2, bb = rb - 2;
  if (ba != bb && ba != 0 && bb != 0)
    return rule_error(ErrorClass::shape_mismatch,
                      "@ of " + to_string(a) + " and " + to_string(b) + " has batch dimensions of different ranks",
                      {"give both operands the same number of batch dimensions, or use einsum"});
  std::string bl = batch(std::max(ba, bb));
  return (ba ? bl : "") + "mk," + (bb ? bl : "") + "kn->" + bl + "mn";
}

}  // namespace shardc::check
