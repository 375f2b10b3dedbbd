// The operator library in one include: convolution / dense / matmul (nn.h), pooling (pool.h),
// elementwise and broadcasting arithmetic (elementwise.h), reductions and normalizations
// (reduce.h), injective data movement (transform.h) and indexing / generation / argument
// reductions (indexing.h).
#pragma once

#include "ops/elementwise.h"
#include "ops/indexing.h"
#include "ops/nn.h"
#include "ops/pool.h"
#include "ops/reduce.h"
#include "ops/transform.h"
