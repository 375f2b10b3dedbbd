// Test helper: how many nodes of a graph run a given operator.
#pragma once

#include <string>

#include "graph/graph.h"

namespace ttune::graph {

inline int count(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes()) n += opName(node.attrs) == op;
  return n;
}

}  // namespace ttune::graph
