// Convolution taps that read only padding, removed. A dilated convolution on a feature map
// smaller than its dilation (the atrous 3x3 convolutions of DeepLab's ASPP on a 28x28 or smaller
// map, with rates 12 / 24 / 36) has taps whose input row or column lies in the padding for every
// output position: they add pad_value * w, i.e. nothing when the padding is zero, yet cost their
// full share of the FLOPs. Per spatial axis the taps that read real input for some output position
// form one contiguous range [a, b] (the input index is monotone in the tap); the convolution keeps
// only those, its weight sliced to them, the leading padding reduced by a * dilation and the
// trailing padding chosen so that the output keeps its extent. A range of one tap also drops the
// dilation, so a dilated 3x3 whose outer taps all read padding becomes a 1x1 (and takes the
// pointwise kernels' schedules).
//
// Contract: the rewritten graph computes what the original computes (the dropped terms are exact
// zeros). Only NCHW convolutions with a constant weight and zero padding value are rewritten
// (an 8-bit convolution's padding reads the input's zero point, which its compensation term
// accounts for over every tap), and only where both new paddings are non-negative.
#pragma once

#include "graph/graph.h"

namespace ttune::graph {

// Returns how many convolutions were rewritten.
int dropPaddingTaps(Graph& g);

// w[:, :, row_first..row_last, col_first..col_last] of an [O, I, KH, KW] weight (inclusive ranges).
runtime::NDArray sliceTaps(const runtime::NDArray& w, int64_t row_first, int64_t row_last, int64_t col_first,
                           int64_t col_last);

}  // namespace ttune::graph
