ttune_module(ops SOURCES ops/registry.cc DEPS ttune_te)
