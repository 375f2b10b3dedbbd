// The element-wise part of one recurrent time step, as one operator each, so that it fuses with
// the step's recurrent matrix product into a single kernel (the gates are four slices of that
// product; composed from slices and activations, every slice would head a kernel of its own).
//
// lstm_cell(z [B, 4H], c [B, H], p): z is x W^T + h R^T + biases in ONNX's gate order i, o, f, c;
// p the optional peepholes [3H] (i, o, f; pass an undefined tensor for none). The output is
// [2, B, H]: the new h at index 0 and the new cell state at 1, with sigmoid gates and tanh
// activations, pre-activations clipped to [-clip, clip] when clip > 0.
// gru_cell(x [B, 3H], hr [B, 3H], h [B, H]): x the input projection (with both biases of z and r
// and Wb of h), hr = h R^T plus Rb of h only, gates z, r, h; linear_before_reset = 1, the form
// PyTorch exports: n = tanh(x_n + r * hr_n), h' = n + z (h - n). Output [B, H].
#pragma once

#include "te/tensor.h"

namespace ttune::ops {

te::Tensor lstm_cell(const te::Tensor& z, const te::Tensor& c, const te::Tensor& peepholes, double clip);
te::Tensor gru_cell(const te::Tensor& x, const te::Tensor& hr, const te::Tensor& h, double clip);

}  // namespace ttune::ops
