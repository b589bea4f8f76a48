#include "frontend/check/dtype_rules.h"

namespace shardc::check {
namespace {

using shard::DType;

// 0 bool, 1 integer, 2 floating: the kinds of the lattice.
int kind_of(DType t) {
  if (t == DType::boolean) return 0;
  if (shard::is_integer(t)) return 1;
  return 2;
}

// Join of two strong dtypes of the same kind.
DType join_same_kind(DType a, DType b) {
  if (a == b) return a;
  if (kind_of(a) == 1) return DType::i64;  // i32 with i64
  return DType::f32;                       // bf16 with f16, or either with f32
}

}  // namespace

DTypeW promote(DTypeW a, DTypeW b) {
  int ka = kind_of(a.dtype), kb = kind_of(b.dtype);
  if (a.weak && b.weak) return ka >= kb ? a : b;
  if (a.weak || b.weak) {
    const DTypeW& w = a.weak ? a : b;
    const DTypeW& s = a.weak ? b : a;
    int kw = kind_of(w.dtype), ks = kind_of(s.dtype);
    // A weak value of a kind no higher than the strong one takes the strong dtype;
    // a higher kind (float literal with int array) materialises as its default dtype.
    if (kw <= ks) return {s.dtype, false};
    return {w.dtype, true};
  }
  if (ka != kb) return ka > kb ? a : b;
  return {join_same_kind(a.dtype, b.dtype), false};
}

DTypeW true_divide(DTypeW a, DTypeW b) {
  DTypeW r = promote(a, b);
  if (!shard::is_floating(r.dtype)) return {DType::f32, r.weak};
  return r;
}

shard::DType mean_dtype(shard::DType t) { return shard::is_floating(t) ? t : DType::f32; }

shard::DType sum_dtype(shard::DType t) { return t == DType::boolean ? DType::i32 : t; }

std::optional<shard::DType> parse_dtype(std::string_view n) {
  for (DType t : {DType::f32, DType::bf16, DType::f16, DType::i32, DType::i64, DType::boolean})
    if (shard::dtype_short_name(t) == n) return t;
  return std::nullopt;
}

}  // namespace shardc::check
