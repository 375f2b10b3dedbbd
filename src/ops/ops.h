// The operator library in one include: convolution / dense / matmul (nn.h), pooling (pool.h),
// elementwise and broadcasting arithmetic (elementwise.h), reductions and normalizations
// (reduce.h) and injective data movement (transform.h).
#pragma once

#include "ops/elementwise.h"
#include "ops/nn.h"
#include "ops/pool.h"
#include "ops/reduce.h"
#include "ops/transform.h"
