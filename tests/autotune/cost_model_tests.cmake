ttune_test(costmodel SOURCES autotune/feature_test.cc autotune/cost_model_test.cc
           DEPS ttune_costmodel ttune_testing ttune_ops)
