// Everything generated code needs from the runtime, in one include.
#pragma once

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
