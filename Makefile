# posenc -- one plain Makefile (style R18).
#   make            build build/posencd (strict warnings, -Werror)
#   make run        install missing packages, build, serve on :8080 with the demo
#   make check      install missing packages, build, run every test
#   make asan       the unit and integration tests under ASan+UBSan
#   make lint       layering and banned-function checks
#   make bench      performance figures (kernels, number writer, HTTP vs a FastAPI peer; not a test)

CC       ?= cc
BUILD    ?= build
PKGS     := libmicrohttpd jansson check libcurl
DEB_PKGS := libmicrohttpd-dev libjansson-dev check libsubunit-dev libcurl4-openssl-dev pkg-config python3 \
	g++ libdragonbox-dev
OPT      ?= -O2
CFLAGS_STRICT := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g $(OPT) \
	-Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wundef -Wcast-align -Wnull-dereference -Werror
SAN      ?=
PKG_CFLAGS = $(shell pkg-config --cflags libmicrohttpd jansson 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs libmicrohttpd jansson 2>/dev/null)
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)
GIT_REV   := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
VERSION   := 0.1.0
DEFS      := -DPOSENC_VERSION='"$(VERSION)"' -DPOSENC_GIT_REV='"$(GIT_REV)"'
ALL_CFLAGS = $(CFLAGS_STRICT) $(SAN) $(DEFS) -Icore -Iapi -Iserver $(PKG_CFLAGS) $(CFLAGS)
# api/numfmt.cc is the only C++ (a shim over Debian's header-only Dragonbox, see api/numfmt.h). It
# needs nothing from libstdc++ today; --as-needed links it only if a future Dragonbox does.
CXX      ?= g++
DRAGONBOX_INC := $(firstword $(wildcard /usr/include/dragonbox-*))
CXXFLAGS_ALL = -std=c++17 -g $(OPT) $(SAN) -fno-exceptions -fno-rtti -Wall -Wextra -Werror \
	-I$(DRAGONBOX_INC) -Iapi $(CXXFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -lm -lpthread -Wl,--as-needed -lstdc++ -Wl,--no-as-needed

CORE_SRC   := $(sort $(wildcard core/*.c))
API_SRC    := $(sort $(wildcard api/*.c))
API_CXX    := $(sort $(wildcard api/*.cc))
SERVER_SRC := $(sort $(filter-out server/main.c,$(wildcard server/*.c)))
TEST_SRC   := $(sort $(filter-out tests/check_main.c,$(wildcard tests/*.c)))
SUITE_SRC  := $(sort $(wildcard tests/check_*.c))
CORE_OBJ   := $(CORE_SRC:%.c=$(BUILD)/%.o)
API_OBJ    := $(API_SRC:%.c=$(BUILD)/%.o) $(API_CXX:%.cc=$(BUILD)/%.o)
SERVER_OBJ := $(SERVER_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ   := $(TEST_SRC:%.c=$(BUILD)/%.o)

.PHONY: all run check unit asan lint deps clean oracle-local bench
all: $(BUILD)/posencd

$(BUILD)/%.o: %.c $(wildcard core/*.h api/*.h server/*.h tests/*.h) | $(BUILD)/.dirs
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/%.o: %.cc api/numfmt.h | $(BUILD)/.dirs
	$(CXX) $(CXXFLAGS_ALL) -MMD -MP -c $< -o $@

# Test files export suites without headers: no prototype warning there.
$(BUILD)/tests/%.o: tests/%.c $(wildcard core/*.h api/*.h server/*.h tests/*.h) | $(BUILD)/.dirs
	$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -Itests -MMD -MP -c $< -o $@

$(BUILD)/.dirs:
	mkdir -p $(BUILD)/core $(BUILD)/api $(BUILD)/server $(BUILD)/tests
	touch $@

$(BUILD)/posencd: $(BUILD)/server/main.o $(SERVER_OBJ) $(API_OBJ) $(CORE_OBJ)
	$(CC) $(SAN) -o $@ $^ $(LDLIBS_ALL)

# The test runner registers every `Suite *NAME_suite(void)` found in tests/check_*.c.
$(BUILD)/tests/suites.inc: $(SUITE_SRC) | $(BUILD)/.dirs
	grep -ho 'Suite \*[a-z0-9_]*_suite(void)' $(SUITE_SRC) | sed -E 's/Suite \*([a-z0-9_]*)_suite\(void\)/PE_SUITE(\1)/' | sort -u > $@

$(BUILD)/tests/check_main.o: tests/check_main.c $(BUILD)/tests/suites.inc
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/tests -c $< -o $@

$(BUILD)/check_all: $(BUILD)/tests/check_main.o $(TEST_OBJ) $(SERVER_OBJ) $(API_OBJ) $(CORE_OBJ)
	$(CC) $(SAN) -o $@ $^ $(CHECK_LIBS) $(LDLIBS_ALL) -lcurl

# Figures, not tests (issue 8; not part of `make check`): kernels vs memcpy, the JSON number writer vs
# jansson, posencd under wrk vs a FastAPI + numpy peer, peak RSS while streaming. Installs wrk and the
# peer's packages when missing (as root). One table at the end; details in bench/run.sh.
BENCH_PKGS := wrk python3-fastapi python3-uvicorn python3-numpy bc curl
bench: deps
	@missing=""; for p in $(BENCH_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then echo "installing:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null || exit 1; \
	  else echo "missing packages; run: sudo apt-get install -y$$missing"; exit 1; fi; fi
	$(MAKE) all $(BUILD)/bench_micro
	bash bench/run.sh $(BUILD)

$(BUILD)/bench_micro: bench/micro.c $(API_OBJ) $(CORE_OBJ) | $(BUILD)/.dirs
	$(CC) $(ALL_CFLAGS) -o $@ bench/micro.c $(API_OBJ) $(CORE_OBJ) $(LDLIBS_ALL)

# Installs missing Debian packages when root, else prints the exact apt-get line.
deps:
	@missing=""; for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then echo "installing:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null || exit 1; \
	  else echo "missing packages; run: sudo apt-get install -y$$missing"; exit 1; fi; fi

run: deps
	$(MAKE) all
	$(BUILD)/posencd --port $${POSENC_PORT:-8080} --web-dir web

unit: $(BUILD)/check_all $(BUILD)/posencd
	POSENC_BIN=$(BUILD)/posencd $(BUILD)/check_all

check: deps
	$(MAKE) all $(BUILD)/check_all
	$(MAKE) lint
	POSENC_BIN=$(BUILD)/posencd $(BUILD)/check_all
	tests/oracle_local.sh $(BUILD)/posencd
	$(MAKE) contract
	$(MAKE) browser

asan:
	$(MAKE) BUILD=build-asan OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  build-asan/posencd build-asan/check_all
	CK_FORK=no ASAN_OPTIONS=detect_leaks=1 POSENC_BIN=build-asan/posencd build-asan/check_all
	tests/oracle_local.sh build-asan/posencd

# Layering (style R1) and banned functions (style R18).
lint:
	@! grep -nE '#include *[<"](microhttpd|jansson|curl/)' core/*.c core/*.h || { echo "lint: core/ must not include I/O or JSON libraries"; exit 1; }
	@! grep -nE '#include *[<"]microhttpd' api/*.c api/*.h || { echo "lint: api/ must not include microhttpd"; exit 1; }
	@! grep -nE '#include *"(api|server)/|#include *"srv_' core/*.c core/*.h || { echo "lint: core/ includes an upper layer"; exit 1; }
	@! grep -nE '#include *"srv_' api/*.c api/*.h || { echo "lint: api/ includes server/"; exit 1; }
	@! grep -rnwE '(sprintf|strcpy|strcat|atoi|atof|strtok|gets)\(' core api server || { echo "lint: banned function"; exit 1; }
	@echo "lint: ok"

clean:
	rm -rf build build-asan

-include $(wildcard $(BUILD)/*/*.d)

# Container parts (issue 6): image build, run, SIGTERM drain, compose failover behind nginx, k8s
# manifests. As root; installs docker.io/debootstrap/docker-compose if missing (docker/docker-check.sh).
.PHONY: docker-check
docker-check:
	bash docker/docker-check.sh

# Contract tests (issue 10): openapi.yaml linted (redocly + the OpenAPI 3.1 schema), then against a
# live build/posencd on an ephemeral loopback port: the example walk, property-based fuzzing,
# route tables vs spec, CORS/X-Request-Id, promtool on /metrics and a headless-chromium client.
# Installs what is missing when root (nodejs npm chromium prometheus; Debian 12's Node 18 is
# enough), runs `npm ci` only when node_modules is missing or the lockfile changed, and prints one
# "N passed, N failed" line. Details: tests/contract/README.md.
CONTRACT_DIR := tests/contract
.PHONY: contract
contract: $(BUILD)/posencd
	@need=""; command -v node >/dev/null 2>&1 || need="$$need nodejs"; \
	command -v npm >/dev/null 2>&1 || need="$$need npm"; \
	[ -x "$${CHROMIUM:-/usr/bin/chromium}" ] || need="$$need chromium"; \
	command -v "$${PROMTOOL:-promtool}" >/dev/null 2>&1 || need="$$need prometheus"; \
	if [ -n "$$need" ]; then \
	  if [ "$$(id -u)" = 0 ]; then echo "installing:$$need"; \
	    before=" $$(pgrep -x prometheus | tr '\n' ' ') "; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need) >/dev/null || exit 1; \
	    for p in $$(pgrep -x prometheus); do case "$$before" in *" $$p "*) ;; \
	      *) echo "stopping the prometheus daemon the package started (pid $$p)"; kill $$p;; esac; done; \
	  else echo "missing packages; run: sudo apt-get install -y$$need"; exit 1; fi; fi
	@cd $(CONTRACT_DIR) && if [ ! -d node_modules ] || ! cmp -s package-lock.json node_modules/.contract-lock; then \
	  npm ci --no-audit --no-fund && cp package-lock.json node_modules/.contract-lock; fi
	node $(CONTRACT_DIR)/lint.mjs
	POSENC_BIN=$(BUILD)/posencd node $(CONTRACT_DIR)/run.mjs

# Browser test of the teaching demo at GET / (issue 5): installs chromium, fonts-noto-cjk and node/npm when
# missing (as root), `npm ci` in tests/browser when stale, serves web/ from build/posencd on an ephemeral
# loopback port, runs tests/browser/demo.test.mjs (playwright-core + Debian's chromium), stops the daemon and
# prints "browser: N passed, N failed". Screenshots: tests/artifacts/browser/.
.PHONY: browser
browser: deps
	$(MAKE) all
	sh tests/browser/run.sh $(BUILD)/posencd

# ---- Hardening (issue 9): fuzzing, ThreadSanitizer, valgrind, hostile clients, soak, durability ----
#   make fuzz [FUZZ_SECONDS=N]   libFuzzer harnesses fuzz/fuzz_*.c (clang, ASan+UBSan), 2 at a time
#                                (FUZZ_JOBS); N s per harness, unset = a ~60 s smoke in all (fuzz/run.sh)
#   make fuzz-seeds              rewrite fuzz/corpus/ and the dictionaries (fuzz/make_seeds.py)
#   make tsan                    cache suite (8 threads) + a daemon under concurrent load, TSan
#   make valgrind                every unit suite and a daemon under load in memcheck
#   make hostile                 hostile clients against live daemons (tests/hostile/hostile.py)
#   make durability              SIGKILL during 100 table uploads (tests/hostile/durability.py)
#   make soak [SOAK_SECONDS=600] mixed load on one daemon: RSS, 5xx, p99 (tests/soak/soak.py)
.PHONY: fuzz fuzz-build fuzz-seeds tsan valgrind hostile durability soak clean-hardening
FUZZ_BUILD   := build-fuzz
FUZZ_CC      ?= clang
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS   = $(filter-out -Werror,$(CFLAGS_STRICT)) -O1 $(FUZZ_SAN) $(DEFS) -Icore -Iapi -Ifuzz \
                $(shell pkg-config --cflags jansson 2>/dev/null)
FUZZ_CXX     ?= clang++
FUZZ_CXXFLAGS = -std=c++17 -g -O1 $(FUZZ_SAN) -fno-exceptions -fno-rtti -Wall -Wextra \
                -I$(DRAGONBOX_INC) -Iapi
FUZZ_LIBS     = $(shell pkg-config --libs jansson 2>/dev/null) -lm -Wl,--as-needed -lstdc++ \
                -Wl,--no-as-needed
FUZZ_NAMES   := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_LIBOBJ  := $(CORE_SRC:%.c=$(FUZZ_BUILD)/%.o) $(API_SRC:%.c=$(FUZZ_BUILD)/%.o) \
                $(API_CXX:%.cc=$(FUZZ_BUILD)/%.o)
FUZZ_SECONDS ?=
FUZZ_JOBS    ?= 2
SOAK_SECONDS ?= 600
DURABILITY_UPLOADS ?= 100
TSAN_SECONDS ?= 30
VALGRIND     := valgrind -q --error-exitcode=1 --leak-check=full \
                --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect
VALGRIND_SKIP ?= http_stream  # reads ~64 MB against a wall-clock deadline: too slow in memcheck

# Library code is built without -Werror here (clang warns differently from gcc); harnesses with it.
$(FUZZ_BUILD)/core/%.o: core/%.c $(wildcard core/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(FUZZ_BUILD)/api/%.o: api/%.c $(wildcard core/*.h api/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(FUZZ_BUILD)/api/%.o: api/%.cc $(wildcard api/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c $(wildcard fuzz/*.h core/*.h api/*.h) $(FUZZ_LIBOBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Werror -fsanitize=fuzzer $< $(FUZZ_LIBOBJ) -o $@ $(FUZZ_LIBS)
.SECONDARY: $(FUZZ_LIBOBJ)

fuzz-build: $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)
fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) fuzz/run.sh
fuzz-seeds:
	python3 fuzz/make_seeds.py

tsan:
	$(MAKE) BUILD=build-tsan OPT=-O1 SAN="-fsanitize=thread -fno-omit-frame-pointer" \
	  build-tsan/posencd build-tsan/check_all
	CK_RUN_SUITE=cache TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" build-tsan/check_all
	python3 tests/hostile/concurrent.py --bin build-tsan/posencd --seconds $(TSAN_SECONDS) \
	  --sanitizer-log build-tsan/reports

# Unit suites one at a time in-process (CK_FORK=no) so that memcheck sees every test; then the
# daemon itself under memcheck with concurrent load.
valgrind: $(BUILD)/posencd $(BUILD)/check_all
	@command -v valgrind >/dev/null || { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; } || { echo "valgrind: run: sudo apt-get install -y valgrind"; exit 1; }
	@set -e; for s in $$(sed -n 's/PE_SUITE(\(.*\))/\1/p' $(BUILD)/tests/suites.inc); do \
	  case " $(VALGRIND_SKIP) " in *" $$s "*) echo "valgrind: skip $$s"; continue;; esac; \
	  log=$(BUILD)/valgrind-$$s.log; \
	  if CK_FORK=no CK_RUN_SUITE=$$s POSENC_BIN=$(BUILD)/posencd $(VALGRIND) $(BUILD)/check_all \
	      >$$log 2>&1; then echo "valgrind $$s: $$(tail -n 1 $$log)"; \
	  else cat $$log; echo "valgrind: $$s FAILED"; exit 1; fi; done
	python3 tests/hostile/concurrent.py --bin $(BUILD)/posencd --valgrind --seconds 15 --threads 8

hostile: $(BUILD)/posencd
	python3 tests/hostile/hostile.py --bin $(BUILD)/posencd
durability: $(BUILD)/posencd
	python3 tests/hostile/durability.py --bin $(BUILD)/posencd --uploads $(DURABILITY_UPLOADS)
soak: $(BUILD)/posencd
	python3 tests/soak/soak.py --bin $(BUILD)/posencd --seconds $(SOAK_SECONDS) \
	  --json $(BUILD)/soak.json

clean-hardening:
	rm -rf build-fuzz build-tsan
