# kdio's measuring and output half: histogram, stats, engines, workers, reports, main.
target_sources(kdio_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/histogram.cc
  ${CMAKE_CURRENT_LIST_DIR}/stats.cc
)

kbisect_unit_test(kdio_stats_test
  SOURCES histogram_test.cc stats_test.cc
  LIBS kdio_core)
