# model tests
ttune_test(models SOURCES models/reference.cc models/zoo_test.cc models/blocks_test.cc models/activation_ranges_test.cc DEPS ttune_models)
