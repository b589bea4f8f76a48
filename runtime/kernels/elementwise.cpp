// Elementwise loops and their dispatch. Each op is resolved to a small function object before
// the loop starts, so the inner loop is one specialised, vectorisable body per (op, dtype).
#include "shard/kernels/elementwise.h"

#include "checks.h"
#include "elementwise_onednn.h"
#include "scalar_math.h"
#include "strided_loop.h"

namespace shard::kernels {
namespace {

using detail::Operands;

template <std::size_t N>
Operands<N> operands(const MutView& out, std::array<const View*, N - 1> ins) {
  Operands<N> ops;
  ops.base[0] = static_cast<char*>(out.data);
  ops.strides[0] = out.strides;
  ops.element_size[0] = static_cast<std::int64_t>(dtype_size(out.dtype));
  for (std::size_t k = 1; k < N; ++k) {
    const View b = ins[k - 1]->broadcast_to(out.shape);
    ops.base[k] = static_cast<char*>(const_cast<void*>(b.data));
    ops.strides[k] = b.strides;
    ops.element_size[k] = static_cast<std::int64_t>(dtype_size(b.dtype));
  }
  return ops;
}

// out[i] = f(a[i]) with In/Out tag types.
template <typename In, typename Out, typename F>
void map1(const View& a, const MutView& out, F f) {
  using IS = typename In::Stored;
  using OS = typename Out::Stored;
  detail::strided_loop(out.shape, operands<2>(out, {&a}),
                       [&](std::int64_t n, std::array<char*, 2> p, std::array<std::int64_t, 2> s) {
                         if (s[0] == sizeof(OS) && s[1] == sizeof(IS)) {
                           auto* o = reinterpret_cast<OS*>(p[0]);
                           const auto* x = reinterpret_cast<const IS*>(p[1]);
                           for (std::int64_t i = 0; i < n; ++i) o[i] = Out::store(f(In::load(x[i])));
                         } else {
                           for (std::int64_t i = 0; i < n; ++i) {
                             *reinterpret_cast<OS*>(p[0] + i * s[0]) =
                                 Out::store(f(In::load(*reinterpret_cast<const IS*>(p[1] + i * s[1]))));
                           }
                         }
                       });
}

// out[i] = f(a[i], b[i]) with broadcasting; dense and scalar-operand runs get their own loops.
template <typename In, typename Out, typename F>
void map2(const View& a, const View& b, const MutView& out, F f) {
  using IS = typename In::Stored;
  using OS = typename Out::Stored;
  detail::strided_loop(
      out.shape, operands<3>(out, {&a, &b}), [&](std::int64_t n, std::array<char*, 3> p, std::array<std::int64_t, 3> s) {
        auto* o = reinterpret_cast<OS*>(p[0]);
        const auto* x = reinterpret_cast<const IS*>(p[1]);
        const auto* y = reinterpret_cast<const IS*>(p[2]);
        const bool dense_out = s[0] == sizeof(OS);
        if (dense_out && s[1] == sizeof(IS) && s[2] == sizeof(IS)) {
          for (std::int64_t i = 0; i < n; ++i) o[i] = Out::store(f(In::load(x[i]), In::load(y[i])));
        } else if (dense_out && s[1] == sizeof(IS) && s[2] == 0) {
          const auto yv = In::load(*y);
          for (std::int64_t i = 0; i < n; ++i) o[i] = Out::store(f(In::load(x[i]), yv));
        } else if (dense_out && s[1] == 0 && s[2] == sizeof(IS)) {
          const auto xv = In::load(*x);
          for (std::int64_t i = 0; i < n; ++i) o[i] = Out::store(f(xv, In::load(y[i])));
        } else {
          for (std::int64_t i = 0; i < n; ++i) {
            const auto xv = In::load(*reinterpret_cast<const IS*>(p[1] + i * s[1]));
            const auto yv = In::load(*reinterpret_cast<const IS*>(p[2] + i * s[2]));
            *reinterpret_cast<OS*>(p[0] + i * s[0]) = Out::store(f(xv, yv));
          }
        }
      });
}

// The two operands and the output are valid views, and the output overlaps neither operand
// except exactly (in place).
void check_operands(const View& a, const View& b, const MutView& out, const char* op) {
  detail::check_view(a, op, "lhs");
  detail::check_view(b, op, "rhs");
  detail::check_output(out, op);
  detail::check_no_overlap(out, a, op, true);
  detail::check_no_overlap(out, b, op, true);
}

void check_broadcast(const View& a, const View& b, const MutView& out, const char* op) {
  check_operands(a, b, out, op);
  const Shape shape = detail::broadcast_shapes(a.shape, b.shape, op);
  if (shape != out.shape) {
    throw ShapeError(std::string(op) + ": operands " + shape_string(a.shape) + " and " + shape_string(b.shape) +
                     " broadcast to " + shape_string(shape) + ", not to the result's " + shape_string(out.shape));
  }
}

template <typename T>
void unary_typed(UnaryOp op, const View& x, const MutView& y) {
  using M = typename T::Math;
  if constexpr (detail::is_float_type<T>) {
    switch (op) {  // the common ones get a loop of their own; the rest share a switch per element
      case UnaryOp::neg: return map1<T, T>(x, y, [](M v) { return -v; });
      case UnaryOp::exp: return map1<T, T>(x, y, [](M v) { return std::exp(v); });
      case UnaryOp::square: return map1<T, T>(x, y, [](M v) { return v * v; });
      case UnaryOp::logical_not: detail::unsupported_dtype(op_name(op), T::dtype);
      default: return map1<T, T>(x, y, [op](M v) { return detail::float_unary(op, v); });
    }
  } else if constexpr (detail::is_int_type<T>) {
    detail::int_unary<M>(op, M{0}, T::dtype);  // rejects float-only ops before touching memory
    return map1<T, T>(x, y, [op](M v) { return detail::int_unary<M>(op, v, T::dtype); });
  } else {
    switch (op) {
      case UnaryOp::logical_not: return map1<T, T>(x, y, [](bool v) { return !v; });
      case UnaryOp::abs:
      case UnaryOp::sign:
      case UnaryOp::square:
      case UnaryOp::relu:
      case UnaryOp::floor:
      case UnaryOp::ceil:
      case UnaryOp::round: return map1<T, T>(x, y, [](bool v) { return v; });  // identities on 0/1
      default: detail::unsupported_dtype(op_name(op), T::dtype);
    }
  }
}

template <typename T>
void binary_typed(BinaryOp op, const View& a, const View& b, const MutView& out) {
  using M = typename T::Math;
  if constexpr (detail::is_float_type<T>) {
    switch (op) {
      case BinaryOp::add: return map2<T, T>(a, b, out, [](M x, M y) { return x + y; });
      case BinaryOp::sub: return map2<T, T>(a, b, out, [](M x, M y) { return x - y; });
      case BinaryOp::mul: return map2<T, T>(a, b, out, [](M x, M y) { return x * y; });
      case BinaryOp::div: return map2<T, T>(a, b, out, [](M x, M y) { return x / y; });
      case BinaryOp::max: return map2<T, T>(a, b, out, detail::float_max);
      case BinaryOp::min: return map2<T, T>(a, b, out, detail::float_min);
      case BinaryOp::pow: return map2<T, T>(a, b, out, [](M x, M y) { return std::pow(x, y); });
      case BinaryOp::floor_div: return map2<T, T>(a, b, out, detail::float_floor_div);
      case BinaryOp::mod: return map2<T, T>(a, b, out, detail::float_mod);
      default: detail::unsupported_dtype(op_name(op), T::dtype);
    }
  } else if constexpr (detail::is_int_type<T>) {
    switch (op) {
      case BinaryOp::add: return map2<T, T>(a, b, out, detail::wrap_add<M>);
      case BinaryOp::sub: return map2<T, T>(a, b, out, detail::wrap_sub<M>);
      case BinaryOp::mul: return map2<T, T>(a, b, out, detail::wrap_mul<M>);
      case BinaryOp::div: return map2<T, T>(a, b, out, detail::int_div<M>);
      case BinaryOp::max: return map2<T, T>(a, b, out, [](M x, M y) { return x > y ? x : y; });
      case BinaryOp::min: return map2<T, T>(a, b, out, [](M x, M y) { return x < y ? x : y; });
      case BinaryOp::pow: return map2<T, T>(a, b, out, detail::int_pow<M>);
      case BinaryOp::integer_pow: return map2<T, T>(a, b, out, detail::int_pow_all_bits<M>);
      case BinaryOp::floor_div: return map2<T, T>(a, b, out, detail::int_floor_div<M>);
      case BinaryOp::mod: return map2<T, T>(a, b, out, detail::int_mod<M>);
      case BinaryOp::logical_and: return map2<T, T>(a, b, out, [](M x, M y) { return static_cast<M>(x & y); });
      case BinaryOp::logical_or: return map2<T, T>(a, b, out, [](M x, M y) { return static_cast<M>(x | y); });
      case BinaryOp::logical_xor: return map2<T, T>(a, b, out, [](M x, M y) { return static_cast<M>(x ^ y); });
    }
  } else {  // bool: jnp.add is logical or, jnp.multiply logical and, as are maximum and minimum
    switch (op) {
      case BinaryOp::add:
      case BinaryOp::max:
      case BinaryOp::logical_or: return map2<T, T>(a, b, out, [](bool x, bool y) { return x || y; });
      case BinaryOp::mul:
      case BinaryOp::min:
      case BinaryOp::logical_and: return map2<T, T>(a, b, out, [](bool x, bool y) { return x && y; });
      case BinaryOp::logical_xor: return map2<T, T>(a, b, out, [](bool x, bool y) { return x != y; });
      default: detail::unsupported_dtype(op_name(op), T::dtype);
    }
  }
}

}  // namespace

void unary(Context& ctx, UnaryOp op, const View& x, const MutView& y) {
  detail::check_view(x, op_name(op), "operand");
  detail::check_output(y, op_name(op));
  detail::check_same_dtype(x.dtype, y.dtype, op_name(op));
  detail::check_same_shape(x.shape, y.shape, op_name(op));
  detail::check_no_overlap(y, x, op_name(op), true);
  if (y.size() == 0) return;
  if (detail::try_onednn_unary(ctx, op, x, y)) return;
  detail::dispatch(x.dtype, [&](auto tag) { unary_typed<decltype(tag)>(op, x, y); });
}

void binary(Context& ctx, BinaryOp op, const View& a, const View& b, const MutView& out) {
  check_broadcast(a, b, out, op_name(op));
  detail::check_same_dtype(a.dtype, b.dtype, op_name(op));
  detail::check_same_dtype(a.dtype, out.dtype, op_name(op));
  if (out.size() == 0) return;
  if (detail::try_onednn_binary(ctx, op, a, b, out)) return;
  detail::dispatch(a.dtype, [&](auto tag) { binary_typed<decltype(tag)>(op, a, b, out); });
}

void compare(CompareOp op, const View& a, const View& b, const MutView& out) {
  check_broadcast(a, b, out, "compare");
  detail::check_same_dtype(a.dtype, b.dtype, "compare");
  if (out.dtype != DType::boolean) {
    throw ArgumentError("compare: the result must be bool, got " + std::string(dtype_name(out.dtype)));
  }
  if (out.size() == 0) return;
  detail::dispatch(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    using M = typename T::Math;
    using B = detail::Bool;
    switch (op) {
      case CompareOp::eq: return map2<T, B>(a, b, out, [](M x, M y) { return x == y; });
      case CompareOp::ne: return map2<T, B>(a, b, out, [](M x, M y) { return x != y; });
      case CompareOp::lt: return map2<T, B>(a, b, out, [](M x, M y) { return x < y; });
      case CompareOp::le: return map2<T, B>(a, b, out, [](M x, M y) { return x <= y; });
      case CompareOp::gt: return map2<T, B>(a, b, out, [](M x, M y) { return x > y; });
      case CompareOp::ge: return map2<T, B>(a, b, out, [](M x, M y) { return x >= y; });
    }
  });
}

void select(const View& cond, const View& a, const View& b, const MutView& out) {
  detail::check_view(cond, "select", "condition");
  check_operands(a, b, out, "select");
  if (cond.dtype != DType::boolean) {
    throw ArgumentError("select: the condition must be bool, got " + std::string(dtype_name(cond.dtype)));
  }
  // As jnp.where: the result has the broadcast shape of all three (the condition may be the
  // largest: where(c[3,2], x[2], y[2]) is [3,2]).
  const Shape shape = detail::broadcast_shapes(detail::broadcast_shapes(cond.shape, a.shape, "select"), b.shape, "select");
  if (shape != out.shape) {
    throw ShapeError("select: condition " + shape_string(cond.shape) + " and operands " + shape_string(a.shape) +
                     " and " + shape_string(b.shape) + " broadcast to " + shape_string(shape) + ", not to the result's " +
                     shape_string(out.shape));
  }
  detail::check_same_dtype(a.dtype, b.dtype, "select");
  detail::check_same_dtype(a.dtype, out.dtype, "select");
  if (out.size() == 0) return;
  // Elements are copied, not computed: move raw bytes of the element's size.
  auto run = [&](auto word) {
    using W = decltype(word);
    detail::strided_loop(out.shape, operands<4>(out, {&cond, &a, &b}),
                         [](std::int64_t n, std::array<char*, 4> p, std::array<std::int64_t, 4> s) {
                           for (std::int64_t i = 0; i < n; ++i) {
                             const bool c = *reinterpret_cast<const std::uint8_t*>(p[1] + i * s[1]) != 0;
                             *reinterpret_cast<W*>(p[0] + i * s[0]) =
                                 *reinterpret_cast<const W*>((c ? p[2] + i * s[2] : p[3] + i * s[3]));
                           }
                         });
  };
  switch (dtype_size(out.dtype)) {
    case 1: return run(std::uint8_t{});
    case 2: return run(std::uint16_t{});
    case 4: return run(std::uint32_t{});
    default: return run(std::uint64_t{});
  }
}

const char* op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::neg: return "neg";
    case UnaryOp::abs: return "abs";
    case UnaryOp::sign: return "sign";
    case UnaryOp::square: return "square";
    case UnaryOp::sqrt: return "sqrt";
    case UnaryOp::rsqrt: return "rsqrt";
    case UnaryOp::exp: return "exp";
    case UnaryOp::log: return "log";
    case UnaryOp::log1p: return "log1p";
    case UnaryOp::expm1: return "expm1";
    case UnaryOp::tanh: return "tanh";
    case UnaryOp::sigmoid: return "sigmoid";
    case UnaryOp::relu: return "relu";
    case UnaryOp::gelu: return "gelu";
    case UnaryOp::gelu_exact: return "gelu_exact";
    case UnaryOp::sin: return "sin";
    case UnaryOp::cos: return "cos";
    case UnaryOp::tan: return "tan";
    case UnaryOp::erf: return "erf";
    case UnaryOp::floor: return "floor";
    case UnaryOp::ceil: return "ceil";
    case UnaryOp::round: return "round";
    case UnaryOp::logical_not: return "logical_not";
  }
  return "unary";
}

const char* op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::add: return "add";
    case BinaryOp::sub: return "sub";
    case BinaryOp::mul: return "mul";
    case BinaryOp::div: return "div";
    case BinaryOp::max: return "max";
    case BinaryOp::min: return "min";
    case BinaryOp::pow: return "pow";
    case BinaryOp::integer_pow: return "integer_pow";
    case BinaryOp::floor_div: return "floor_div";
    case BinaryOp::mod: return "mod";
    case BinaryOp::logical_and: return "logical_and";
    case BinaryOp::logical_or: return "logical_or";
    case BinaryOp::logical_xor: return "logical_xor";
  }
  return "binary";
}

}  // namespace shard::kernels
