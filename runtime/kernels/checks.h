// Internal: argument checks shared by the kernels. Every message names the operation and the
// offending shapes or dtypes, so a bad call from generated code is easy to trace.
#pragma once

#include <string>

#include "shard/errors.h"
#include "shard/kernels/view.h"

namespace shard::kernels::detail {

// Ranks of shape and strides agree and no dimension is negative.
void check_view(const View& v, const char* op, const char* name);
// A result view: also rejects stride 0 on a dimension of size > 1 (two elements, one address).
void check_output(const View& v, const char* op);
// The result must not share memory with an input, except (when `same_view_ok`) as exactly the
// same view, which elementwise kernels read and write element by element in step.
void check_no_overlap(const View& out, const View& in, const char* op, bool same_view_ok);
void check_same_dtype(DType a, DType b, const char* op);
void check_same_shape(const Shape& a, const Shape& b, const char* op);
// numpy broadcasting: the shape of a op b. Throws ShapeError when they do not broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
// Normalises a possibly negative axis into [0, rank).
int normalize_axis(std::int64_t axis, std::int64_t rank, const char* op);
[[noreturn]] void unsupported_dtype(const char* op, DType dtype);
// A broken invariant inside the kernels (never the caller's fault): stays on in release builds.
[[noreturn]] void internal_error(const std::string& what);

}  // namespace shard::kernels::detail
