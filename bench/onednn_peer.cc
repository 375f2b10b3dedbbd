#include "onednn_peer.h"

#include <omp.h>

#include <dnnl.hpp>
#include <vector>

namespace ttune::bench {

namespace {
struct Holder {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::primitive prim;
  std::unordered_map<int, dnnl::memory> args;
};

void fill(dnnl::memory& m) {
  float* p = static_cast<float*>(m.get_data_handle());
  size_t n = m.get_desc().get_size() / sizeof(float);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<float>((i * 2654435761u % 1000) / 1000.0 - 0.5);
}
}  // namespace

void setOnednnThreads(int n) { omp_set_num_threads(n); }

std::string limitOnednnIsa(const std::string& isa) {
  if (isa == "avx2")
    dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx2);
  else if (isa == "avx512")
    dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx512_core_bf16);
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx2:
      return "avx2";
    case dnnl::cpu_isa::avx2_vnni:
      return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core:
      return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "other";
  }
}

PeerKernel onednnConv(const ConvShape& c) {
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;
  auto h = std::make_shared<Holder>();
  int64_t oh = (c.h + 2 * c.pad - c.r) / c.stride + 1, ow = (c.w + 2 * c.pad - c.s) / c.stride + 1;
  dnnl::memory::desc src({c.n, c.c, c.h, c.w}, dt::f32, tag::any);
  dnnl::memory::desc wei({c.k, c.c, c.r, c.s}, dt::f32, tag::any);
  dnnl::memory::desc dst({c.n, c.k, oh, ow}, dt::f32, tag::any);
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
                                       wei, dst, {c.stride, c.stride}, {c.pad, c.pad}, {c.pad, c.pad});
  auto pd = dnnl::convolution_forward::primitive_desc(desc, h->eng);
  dnnl::memory s(pd.src_desc(), h->eng), w(pd.weights_desc(), h->eng), d(pd.dst_desc(), h->eng);
  fill(s);
  fill(w);
  h->prim = dnnl::convolution_forward(pd);
  h->args = {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, d}};
  Holder* raw = h.get();
  return PeerKernel{[raw] {
                      raw->prim.execute(raw->strm, raw->args);
                      raw->strm.wait();
                    },
                    h};
}

PeerKernel onednnMatmul(int64_t m, int64_t n, int64_t k) {
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;
  auto h = std::make_shared<Holder>();
  dnnl::memory::desc a({m, k}, dt::f32, tag::ab);
  dnnl::memory::desc b({k, n}, dt::f32, tag::any);
  dnnl::memory::desc cc({m, n}, dt::f32, tag::ab);
  dnnl::matmul::desc desc(a, b, cc);
  auto pd = dnnl::matmul::primitive_desc(desc, h->eng);
  dnnl::memory ma(pd.src_desc(), h->eng), mb(pd.weights_desc(), h->eng), mc(pd.dst_desc(), h->eng);
  fill(ma);
  fill(mb);
  h->prim = dnnl::matmul(pd);
  h->args = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}};
  Holder* raw = h.get();
  return PeerKernel{[raw] {
                      raw->prim.execute(raw->strm, raw->args);
                      raw->strm.wait();
                    },
                    h};
}

}  // namespace ttune::bench
