ttune_test(transfer SOURCES transfer/transfer_test.cc transfer/nearest_test.cc transfer/shipped_bank_test.cc transfer/refresh_test.cc transfer/readout_test.cc
           DEPS ttune_transfer ttune_ops ttune_testing ttune_models)
add_dependencies(test_transfer ttune-worker)
