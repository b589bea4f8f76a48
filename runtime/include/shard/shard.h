// Everything generated code needs from the runtime, in one include.
#pragma once

// Without this, a C++17 build (g++'s default) fails in the headers with two dozen errors
// about defaulted comparisons that do not name the cause.
#if __cplusplus < 202002L
#error "shardc's runtime and generated code need C++20: compile with -std=c++20 (CMake: cxx_std_20)"
#endif

#include "shard/array.h"
#include "shard/block_cache.h"
#include "shard/collectives.h"
#include "shard/communicator.h"
#include "shard/device.h"
#include "shard/dtype.h"
#include "shard/errors.h"
#include "shard/group.h"
#include "shard/mesh.h"
#include "shard/runtime.h"
#include "shard/sharding.h"
#include "shard/tensor.h"
#include "shard/tensor_views.h"
