# Search policy and task scheduler (the cost model lives in cost_model.cmake: ttune_costmodel).
ttune_module(autotune SOURCES autotune/analysis.cc autotune/sketch.cc autotune/sampler.cc autotune/search_task.cc autotune/tuner.cc DEPS ttune_costmodel)
