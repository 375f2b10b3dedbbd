ttune_test(store SOURCES store/bank_test.cc store/import_test.cc store/durability_test.cc DEPS ttune_store)
