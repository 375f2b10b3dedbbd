# The schedule bank (SQLite). See store/README.md.
find_package(SQLite3 REQUIRED)
ttune_module(store SOURCES store/sqlite.cc store/types.cc store/bank.cc store/bank_read.cc store/bank_io.cc store/seed.cc
             DEPS ttune_schedule SQLite::SQLite3)
target_compile_definitions(ttune_store PRIVATE TTUNE_SHIPPED_BANK_DIR="${PROJECT_SOURCE_DIR}/bank")
