# kdio's measuring and output half: histogram, stats, engines, workers, reports, main.
add_library(kdio_core STATIC
  ${CMAKE_CURRENT_LIST_DIR}/block_order.cc
  ${CMAKE_CURRENT_LIST_DIR}/cgroup.cc
  ${CMAKE_CURRENT_LIST_DIR}/engine.cc
  ${CMAKE_CURRENT_LIST_DIR}/engine_io_uring.cc
  ${CMAKE_CURRENT_LIST_DIR}/engine_libaio.cc
  ${CMAKE_CURRENT_LIST_DIR}/engine_psync.cc
  ${CMAKE_CURRENT_LIST_DIR}/file_layout.cc
  ${CMAKE_CURRENT_LIST_DIR}/histogram.cc
  ${CMAKE_CURRENT_LIST_DIR}/io_planner.cc
  ${CMAKE_CURRENT_LIST_DIR}/rate_limit.cc
  ${CMAKE_CURRENT_LIST_DIR}/rate_sampler.cc
  ${CMAKE_CURRENT_LIST_DIR}/report.cc
  ${CMAKE_CURRENT_LIST_DIR}/report_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/report_normal.cc
  ${CMAKE_CURRENT_LIST_DIR}/result.cc
  ${CMAKE_CURRENT_LIST_DIR}/runner.cc
  ${CMAKE_CURRENT_LIST_DIR}/stats.cc
  ${CMAKE_CURRENT_LIST_DIR}/worker.cc
)
# Static archives so that the kdio binary needs nothing in the guest.
find_library(KDIO_LIBAIO_A NAMES libaio.a REQUIRED)
find_library(KDIO_LIBURING_A NAMES liburing.a REQUIRED)
find_package(Threads REQUIRED)
target_link_libraries(kdio_core PUBLIC kdio_parser kdio_json_numbers nlohmann_json::nlohmann_json
                      ${KDIO_LIBURING_A} ${KDIO_LIBAIO_A} Threads::Threads)

kbisect_unit_test(kdio_stats_test
  SOURCES histogram_test.cc json_numbers_test.cc stats_test.cc block_order_test.cc report_test.cc
    cgroup_test.cc rate_limit_test.cc rate_sampler_test.cc
  LIBS kdio_core)

kbisect_unit_test(kdio_worker_test
  SOURCES worker_test.cc io_planner_test.cc
  LIBS kdio_core)
target_compile_definitions(kdio_worker_test PRIVATE
  KDIO_TEST_DIR="${CMAKE_CURRENT_BINARY_DIR}/worker_test_files")

# The kdio executable: fully static (it runs alone in a minimal initramfs) and stripped, except
# in the Asan build (make test-asan): the sanitizer runtimes do not link statically, and that
# kdio only runs on the host, under kdio_main_test.
set(kdio_static $<NOT:$<CONFIG:Asan>>)
add_executable(kdio main.cc)
target_link_libraries(kdio PRIVATE kdio_core)
target_link_options(kdio PRIVATE "$<${kdio_static}:-static;-s>")

kbisect_unit_test(kdio_main_test
  SOURCES main_test.cc
  LIBS nlohmann_json::nlohmann_json)
add_dependencies(kdio_main_test kdio)
target_compile_definitions(kdio_main_test PRIVATE
  KDIO_BINARY="$<TARGET_FILE:kdio>"
  KDIO_STATIC=${kdio_static}
  KDIO_TEST_DIR="${CMAKE_CURRENT_BINARY_DIR}/main_test_files")
