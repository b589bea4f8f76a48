// Every kernel header at once, for generated code and the runtime.
#pragma once

#include "shard/kernels/context.h"
#include "shard/kernels/data_movement.h"
#include "shard/kernels/elementwise.h"
#include "shard/kernels/float16.h"
#include "shard/kernels/gather.h"
#include "shard/kernels/matmul.h"
#include "shard/kernels/reduce.h"
#include "shard/kernels/sort.h"
#include "shard/kernels/view.h"
