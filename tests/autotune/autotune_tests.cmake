ttune_test(autotune SERIAL SOURCES autotune/sketch_test.cc autotune/tuner_test.cc autotune/pipelined_tuner_test.cc autotune/resume_test.cc DEPS ttune_autotune ttune_measure ttune_ops ttune_testing ttune_store)
add_dependencies(test_autotune ttune-worker)
