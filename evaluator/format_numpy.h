// Values printed the way numpy prints arrays (`print(np_array)`), for `shardc run --print`
// and for comparing with the seeds' printed outputs:
//
//   int32 (2, 4)         [[3 0 1 2]
//                         [7 4 5 6]]
//   float32 (4,)         [224. 225. 226. 227.]
//   float32 (2,)         [1.5e-05 2.0e+03]      (scientific when the magnitudes call for it)
//   bool (2,)            [ True False]
//   float32 scalar       4.0431547
//
// numpy's defaults: precision 8 (shortest round-trip digits, at most 8 after the point),
// elements of one array padded to a common width, lines wrapped at 75 characters, arrays
// of more than 1000 elements summarised with 3 edge items and "...".
#pragma once

#include <string>

#include "evaluator/host_tensor.h"

namespace shardc::eval {

std::string format_numpy(const HostTensor& t);

}  // namespace shardc::eval
