// The operator library in one include: convolution / dense / matmul (nn.h), pooling (pool.h),
// elementwise and broadcasting arithmetic (elementwise.h), reductions and normalizations
// (reduce.h), injective data movement (transform.h), indexing / generation / argument
// reductions (indexing.h) and recurrent cells (recurrent.h).
#pragma once

#include "ops/elementwise.h"
#include "ops/indexing.h"
#include "ops/nn.h"
#include "ops/pool.h"
#include "ops/recurrent.h"
#include "ops/reduce.h"
#include "ops/sample.h"
#include "ops/transform.h"
