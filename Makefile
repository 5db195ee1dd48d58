# flashlab -- top-level build.  `make` builds the CLI and the shared library,
# `make test` runs every test (ASan+UBSan), `make run` the default job.
CC      ?= cc
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
PKGS    := yaml-0.1 sqlite3 fuse3
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lyaml -lsqlite3 -lfuse3 -lpthread)
INCS    := -Isim -Ifs -Ifsck -Iworkloads -Ianalysis -Icli
CFLAGS  ?= -O2 -g
VERSION := 0.1.0-$(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
ALL_CFLAGS := $(CSTD) $(WARN) $(INCS) $(PKG_CFLAGS) -fPIC $(CFLAGS) \
              -DFLASHLAB_VERSION='"$(VERSION)"'
LIBS    := $(PKG_LIBS) -lm
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

BUILD   := build
LIB_SRC := $(wildcard sim/*.c fs/*.c fsck/*.c workloads/*.c analysis/*.c)
CLI_SRC := $(wildcard cli/*.c)
TEST_SRC := $(wildcard tests/test_*.c)
BENCH_SRC := $(wildcard bench/bench_*.c)

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
SAN_LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/san/%.o)
TESTS   := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCHES := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
HDRS    := $(wildcard sim/*.h fs/*.h fsck/*.h workloads/*.h analysis/*.h cli/*.h tests/*.h bench/*.h)

.PHONY: all test run bench check-long deps clean
all: $(BUILD)/flashlab $(BUILD)/libflashlab.so

$(BUILD)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/san/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O1 $(SAN) -c $< -o $@

$(BUILD)/libflashlab.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libflashlab.so: $(LIB_OBJ)
	$(CC) -shared -o $@ $^ $(LIBS)

$(BUILD)/flashlab: $(CLI_OBJ) $(BUILD)/libflashlab.a
	$(CC) -o $@ $(CLI_OBJ) $(BUILD)/libflashlab.a $(LIBS)

$(BUILD)/libflashlab-san.a: $(SAN_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# Unit tests: one executable each, built with ASan+UBSan.
$(BUILD)/tests/%: tests/%.c $(BUILD)/libflashlab-san.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O1 $(SAN) -Itests $< -o $@ $(BUILD)/libflashlab-san.a $(LIBS)

$(BUILD)/bench/%: bench/%.c $(BUILD)/libflashlab.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O2 $< -o $@ $(BUILD)/libflashlab.a $(LIBS)

# `make test` and `make run` install missing packages first, so that each
# is the one command a fresh machine needs.
test: deps
	@$(MAKE) --no-print-directory all $(TESTS)
	@sh tests/run.sh $(TESTS)

run: deps
	@$(MAKE) --no-print-directory all
	@sh tests/demo.sh

bench: $(BENCHES)
	@mkdir -p results
	@for b in $(BENCHES); do $$b || exit 1; done

check-long: all $(TESTS)
	@FLASHLAB_LONG=1 sh tests/run.sh $(TESTS)

deps:
	@sh .ci/deps.sh

clean:
	rm -rf $(BUILD)
