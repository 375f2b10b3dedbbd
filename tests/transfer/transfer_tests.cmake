ttune_test(transfer SOURCES transfer/transfer_test.cc DEPS ttune_transfer ttune_ops ttune_testing)
add_dependencies(test_transfer ttune-worker)
