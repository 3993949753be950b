# kbisect: set-up, build and tests. Every target does its own set-up.
#   make test        deps + build + format check + every test (unit, integration, e2e) + the
#                    readers of untrusted input under the sanitizers
#   make test-unit   the fast loop: build + unit tests only
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
CTEST_FLAGS ?= --output-on-failure

CMAKE_CONFIGURE = cmake -S . -B $(1) -DCMAKE_BUILD_TYPE=$(2) >/dev/null

.PHONY: all deps configure build demo test test-unit test-integration test-e2e test-asan test-asan-input format format-check fuzz clean

all: build

deps:
	@scripts/deps.sh

configure: deps
	@$(call CMAKE_CONFIGURE,$(BUILD_DIR),$(BUILD_TYPE))

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job: bisect the generated demo kernel history (FRESH=1: a new session). Builds only
# kbisect (and the kdio it embeds), not the tests.
demo: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target kbisect
	@scripts/demo.sh $(BUILD_DIR) $(if $(FRESH),--fresh)

# Every test: unit, integration (real kernel builds, QEMU, libvirtd) and e2e (a real bisection
# of a small generated kernel history), and the readers of untrusted input under the sanitizers.
test: build format-check test-asan-input
	cd $(BUILD_DIR) && ctest $(CTEST_FLAGS) -j $(JOBS)

test-unit: build
	cd $(BUILD_DIR) && ctest $(CTEST_FLAGS) -j $(JOBS) -L unit

test-integration: build
	cd $(BUILD_DIR) && ctest $(CTEST_FLAGS) -L integration

test-e2e: build
	cd $(BUILD_DIR) && ctest $(CTEST_FLAGS) -L e2e

# AddressSanitizer + UndefinedBehaviorSanitizer build of the unit tests.
test-asan: deps
	@$(call CMAKE_CONFIGURE,build-asan,Asan)
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest $(CTEST_FLAGS) -j $(JOBS) -L unit

# What reads untrusted input (the guest's console frames and what they say, fio job files,
# scenario configs) under AddressSanitizer + UndefinedBehaviorSanitizer: their unit tests and
# the fuzz targets' corpora. Part of `make test`; about 2.5 minutes cold on 2 cores.
ASAN_INPUT_TESTS = harness/vm/vm_console_frame_test harness/vm/vm_classify_test \
	harness/vm/vm_console_file_reader_test \
	workloads/kdio/kdio_parser_test harness/config/config_test
test-asan-input: deps
	@$(call CMAKE_CONFIGURE,build-asan,Asan)
	cmake --build build-asan -j $(JOBS) --target $(notdir $(ASAN_INPUT_TESTS)) \
		jobfile_fuzz_replay console_frame_fuzz_replay
	cd build-asan && for test in $(ASAN_INPUT_TESTS); do ./$$test --gtest_brief=1 || exit 1; done
	cd build-asan && ctest $(CTEST_FLAGS) -R '_fuzz_corpus$$'

# libFuzzer run of the kdio job parser (needs clang): 60 s, starting from the seed job files.
FUZZ_CORPUS = build-fuzz/corpus
fuzz: deps
	@cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release -DKBISECT_FUZZ=ON \
		-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
	cmake --build build-fuzz --target jobfile_fuzz -j $(JOBS)
	mkdir -p $(FUZZ_CORPUS)
	cp workloads/jobs/*.fio $(FUZZ_CORPUS)/
	build-fuzz/workloads/kdio/fuzz/jobfile_fuzz -max_total_time=60 \
		-dict=workloads/kdio/fuzz/jobfile.dict $(FUZZ_CORPUS)
	cmake --build build-fuzz --target console_frame_fuzz -j $(JOBS)
	mkdir -p build-fuzz/console-corpus && cp harness/vm/fuzz/corpus/* build-fuzz/console-corpus/
	build-fuzz/harness/vm/fuzz/console_frame_fuzz -max_total_time=60 \
		-dict=harness/vm/fuzz/console.dict build-fuzz/console-corpus

FORMAT_FILES = $(shell git ls-files '*.cc' '*.h')

format:
	clang-format -i $(FORMAT_FILES)

format-check: deps
	@clang-format --dry-run --Werror $(FORMAT_FILES) && echo "format-check: $(words $(FORMAT_FILES)) files clean"

clean:
	rm -rf $(BUILD_DIR) build-asan build-fuzz
