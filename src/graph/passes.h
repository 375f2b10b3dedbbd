// Graph passes run before fusion, in this order by optimizeGraph():
//   foldConstants     nodes whose inputs are all constants become constants (the exporters'
//                     shape arithmetic, constant transposes);
//   foldBatchNorm     conv -> [add bias] -> batch_norm becomes conv with scaled weights -> add
//                     bias (inference statistics are constants);
//   removeIdentities  identity nodes and reshapes to the same shape disappear;
//   eliminateDeadCode nodes no output depends on disappear.
// Layout: convolutions stay NCHW (the schedules tile and vectorize NCHW directly, and constant
// weights are re-laid-out per schedule by layout rewrite instead of a graph-level transform).
#pragma once

#include "graph/graph.h"

namespace ttune::graph {

// Folds constant subgraphs whose result has at most max_elements elements.
void foldConstants(Graph& g, int64_t max_elements = int64_t(1) << 26);
void foldBatchNorm(Graph& g);
void removeIdentities(Graph& g);
void eliminateDeadCode(Graph& g);
void optimizeGraph(Graph& g);

}  // namespace ttune::graph
