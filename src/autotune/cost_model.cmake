# The cost model of the auto-scheduler: per-store features of the loop IR and the XGBoost model.
# XGBoost 1.7 (Debian libxgboost-dev) ships no CMake config: find the C API header and library.
find_path(XGBOOST_INCLUDE_DIR xgboost/c_api.h REQUIRED)
find_library(XGBOOST_LIBRARY NAMES xgboost REQUIRED)
add_library(ttune_xgboost INTERFACE)
target_include_directories(ttune_xgboost SYSTEM INTERFACE ${XGBOOST_INCLUDE_DIR})
target_link_libraries(ttune_xgboost INTERFACE ${XGBOOST_LIBRARY})

ttune_module(costmodel SOURCES autotune/features.cc autotune/feature_ops.cc autotune/feature_walker.cc autotune/cost_model.cc
             autotune/cost_model_xgb.cc DEPS ttune_measure ttune_xgboost)
