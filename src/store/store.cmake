# The schedule bank (SQLite, or PostgreSQL through libpq). See store/README.md.
find_package(SQLite3 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq)
ttune_module(store SOURCES store/sql_db.cc store/sqlite.cc store/postgres.cc store/types.cc store/bank.cc store/bank_read.cc
             store/bank_io.cc store/seed.cc store/job_queue.cc
             DEPS ttune_schedule SQLite::SQLite3 PkgConfig::LIBPQ)
