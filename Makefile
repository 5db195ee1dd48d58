# flashlab -- top-level build.  `make` builds the CLI and the shared library,
# `make test` runs every test (ASan+UBSan), `make run` the default job.
CC      ?= cc
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
PKGS    := yaml-0.1 sqlite3 fuse3
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lyaml -lsqlite3 -lfuse3 -lpthread)
# Per-layer include paths: a folder sees only its own headers and those of
# the layers below it (docs/architecture.md), so an upward #include fails
# to compile.  scripts/layercheck_top.py's table is the truth they must
# match (make test checks it).  Sub-folders of fs/ see each other's public headers as
# "logfs/logfs.h"; their internal headers only from their own folder.
INC.sim       := -Isim
INC.gc        := -Isim -Igc
INC.blk       := $(INC.gc) -Iblk
INC.fs        := $(INC.blk) -Ifs
INC.fsck      := -Isim -Ifsck
INC.analysis  := $(INC.gc) -Ianalysis
INC.workloads := $(INC.fs) -Iworkloads -Iworkloads/trace
# experiment/: YAML experiments, the runner and the campaigns, which write
# their results through analysis/
INC.experiment := $(INC.workloads) -Ianalysis -Iexperiment
# api/: library glue above every layer (layout.h: struct layouts for bindings)
INC.api       := $(INC.experiment) -Iapi
INC.cli       := $(INC.experiment) -Ifsck -Iapi -Icli
INC.tests     := $(INC.cli) -Itests
INC.bench     := $(INC.cli) -Ibench
INC.fuzz      := $(INC.cli) -Ifuzz
# the include path of a source file: that of its top folder
incs_of = $(INC.$(firstword $(subst /, ,$(1))))
CFLAGS  ?= -O2 -g
RELEASE := 0.2.0
SOVERSION := 1
VERSION := $(RELEASE)-$(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
ALL_CFLAGS := $(CSTD) $(WARN) $(PKG_CFLAGS) -MMD -MP -fPIC $(CFLAGS) \
              -DFLASHLAB_VERSION='"$(VERSION)"'
LIBS    := $(PKG_LIBS) -lz -llzo2 -lm  # zlib, lzo: JFFS2 node compression
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# Checks only the test builds afford: LogFS recomputes every payload CRC it
# reuses (fs/logfs/area.c), and counts the segments each of the cleaner's
# tight commits opens against their bound (fs/logfs/gcroom.c); either
# aborts on a mismatch.
CHECKS  := -DLFS_CRC_CHECK -DLFS_GCROOM_CHECK
# The library exports only what its public headers declare: they wrap their
# declarations in `#pragma GCC visibility push(default)` (docs/api.md).
LIB_VIS := -fvisibility=hidden
PUBLIC_HDRS := sim/nand.h fs/fstypes.h fs/fsapi.h fs/logfs/logfs.h fsck/fsck.h \
               analysis/results.h api/layout.h

BUILD   := build
LIB_DIRS := sim gc blk fs fs/logfs fs/jffs2 fs/blockfs fs/ftl fsck analysis \
            workloads workloads/trace experiment api
LIB_SRC := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
CLI_SRC := $(wildcard cli/*.c)
TEST_SRC := $(wildcard tests/*/test_*.c)
BENCH_SRC := $(wildcard bench/bench_*.c)

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
SAN_LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/san/%.o)
TESTS   := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCHES := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

.PHONY: all test run bench bench-ftl bench-steady-mqsim check-long check-linux check-posix check-integck check-xfstests deps deps-xfstests clean install ssd-figure
all: $(BUILD)/flashlab $(BUILD)/libflashlab.so $(BUILD)/mount.fuse.flashlab

# mount(8)'s helper for `mount -t fuse.flashlab` (docs/mount.md); this copy
# finds flashlab beside itself, the installed one in $(PREFIX)/bin
$(BUILD)/mount.fuse.flashlab: scripts/mount.fuse.flashlab.in
	@mkdir -p $(dir $@)
	sed 's|@BINDIR@|$(abspath $(BUILD))|g' $< > $@.tmp && chmod 755 $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LIB_VIS) $(call incs_of,$<) -c $< -o $@

$(BUILD)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(call incs_of,$<) -O1 $(SAN) $(CHECKS) -c $< -o $@

$(BUILD)/libflashlab.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libflashlab.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libflashlab.so.$(SOVERSION) -o $@ $^ $(LIBS)

$(BUILD)/flashlab: $(CLI_OBJ) $(BUILD)/libflashlab.a
	$(CC) -o $@ $(CLI_OBJ) $(BUILD)/libflashlab.a $(LIBS)

$(BUILD)/libflashlab-san.a: $(SAN_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# Unit tests: one executable each (tests/<layer>/test_x.c ->
# build/tests/<layer>/test_x), built with ASan+UBSan.
$(BUILD)/tests/%: tests/%.c $(BUILD)/libflashlab-san.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(INC.tests) -O1 $(SAN) $< -o $@ $(BUILD)/libflashlab-san.a $(LIBS)

$(BUILD)/bench/%: bench/%.c $(BUILD)/libflashlab.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(INC.bench) -O2 $< -o $@ $(BUILD)/libflashlab.a $(LIBS)

# `make test` and `make run` install missing packages first, so that each
# is the one command a fresh machine needs.  `make test T=PATTERN` runs only
# the test cases (C) and suites (shell, Python) whose name matches PATTERN
# (tests/run.sh, README.md).
# `make run J=N` runs N runs at a time (flashlab run -j N; default 2).
test: deps
	@$(MAKE) --no-print-directory all $(TESTS)
	@BUILD=$(BUILD) T='$(T)' sh tests/run.sh $(TESTS)

run: deps
	@$(MAKE) --no-print-directory all
	@FL=./$(BUILD)/flashlab J='$(J)' sh tests/demo.sh

# `make bench QUICK=1`: the steady-state benchmark's quick variant
# (bench/bench_steady.c, docs/performance.md).
bench: $(BENCHES)
	@mkdir -p results
	@for b in $(BENCHES); do FLASHLAB_BENCH_QUICK='$(QUICK)' MQSIM='$(MQSIM)' \
	  MQSIM_XML='$(MQSIM_XML)' ROUNDS='$(ROUNDS)' $$b || exit 1; done

# `make bench-ftl MQSIM=BINARY MQSIM_XML=DIR [ROUNDS=3]`: flashlab's FTL and
# MQSim alternately on MQSim's job, medians and ratios (bench/bench_ftl_mqsim.c,
# docs/performance.md); without MQSIM, flashlab alone.
bench-ftl: $(BUILD)/bench/bench_ftl_mqsim
	@mkdir -p results
	@MQSIM='$(MQSIM)' MQSIM_XML='$(MQSIM_XML)' ROUNDS='$(ROUNDS)' $<

# `make bench-steady-mqsim MQSIM=BINARY MQSIM_XML=DIR [ROUNDS=3]`: LogFS at
# steady state (bench_steady, variant off) and MQSim on its job alternately,
# medians and ratios (scripts/steady-vs-mqsim.sh, docs/performance.md).
bench-steady-mqsim: $(BUILD)/bench/bench_steady
	@MQSIM='$(MQSIM)' MQSIM_XML='$(MQSIM_XML)' ROUNDS='$(ROUNDS)' sh scripts/steady-vs-mqsim.sh $<

check-long: all $(TESTS)
	@FLASHLAB_LONG=1 BUILD=$(BUILD) T='$(T)' sh tests/run.sh $(TESTS)
	@$(MAKE) --no-print-directory check-linux

# `make check-linux`, as root: Debian's kernel under qemu (TCG) mounts
# flashlab's JFFS2 images on nandsim as the OLPC XO-1 part, writes to them,
# and times its mounts against flashlab's (scripts/check-linux/check-linux.sh
# says how; docs/linux-check.md, docs/mount-latency.md).  It installs qemu and
# unpacks the kernel itself (apt-get), all under build/linux; about 15 min
# on 2 cores, 6 of them the guest's.  Not part of `make test`.
check-linux: all
	@FL=./$(BUILD)/flashlab B=$(BUILD)/linux sh scripts/check-linux/check-linux.sh

# `make check-posix PJDFSTEST=DIR [SUITES='chmod utimensat']`, as root:
# pjdfstest from DIR on a fresh image under `flashlab mount -o allow_other`
# (docs/mount.md has the latest counts).  Not part of `make test`.
check-posix: all
	@sh scripts/check-posix.sh '$(PJDFSTEST)' ./$(BUILD)/flashlab $(SUITES)

# `make check-integck MTD_UTILS=DIR`, as root: mtd-utils' integck (-n 10 -e,
# then -p under 100 random power cuts) and fs-tests' test_1 and test_2 from
# DIR (mtd-utils' git dir or a work tree; built under $(BUILD)/integck) on
# flashlab mounts, their remounts through scripts/integck/mount_shim.c
# (docs/mount.md has the results).  Not part of `make test`.
check-integck: all
	@sh scripts/integck/check-integck.sh '$(MTD_UTILS)' ./$(BUILD)/flashlab $(BUILD)/integck

deps:
	@sh .ci/deps.sh

# `make ssd-figure`, as root: one fio job on ext4, XFS and btrfs over the
# FTL (mount --block and a loop device) and on LogFS, on the same NAND
# preset; writes docs/img/ssd-fs-wear.csv and .png (scripts/ssd-fs-wear.sh,
# docs/ftl.md has the numbers).  Takes minutes; not part of `make test`.
ssd-figure: all
	@FL=./$(BUILD)/flashlab sh scripts/ssd-fs-wear.sh docs/img/ssd-fs-wear.csv docs/img/ssd-fs-wear.png

# `make check-xfstests XFSTESTS=DIR [XFSTESTS_ARGS='-g quick']`, as root:
# xfstests' ./check from the built tree DIR on two fresh LogFS images
# through mount.fuse.flashlab (scripts/check-xfstests.sh; docs/mount.md has
# the counts).  Per-test results stay in build/xfstests/results.  `make
# deps-xfstests` installs what building and running xfstests needs.
XFSTESTS_DEPS := autoconf automake libtool libtool-bin make gcc pkg-config xfslibs-dev \
                 uuid-dev libacl1-dev libattr1-dev libaio-dev libcap-dev libgdbm-dev \
                 libgdbm-compat-dev liburing-dev xfsprogs acl attr bc psmisc gawk fio \
                 util-linux
check-xfstests: all
	@sh scripts/check-xfstests.sh '$(XFSTESTS)' ./$(BUILD)/flashlab \
	    ./$(BUILD)/mount.fuse.flashlab $(BUILD)/xfstests $(XFSTESTS_ARGS)

# and the users and group some tests run as (xfstests' README, step 6;
# without them those tests are "not run": fsgqa user not defined)
XFSTESTS_USERS := fsgqa fsgqa2 123456-fsgqa
deps-xfstests:
	@missing=$$(for p in $(XFSTESTS_DEPS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	 [ -z "$$missing" ] || apt-get install -y $$missing
	@for u in $(XFSTESTS_USERS); do id -u $$u >/dev/null 2>&1 || useradd -m $$u || exit 1; done; \
	 getent group fsgqa >/dev/null || groupadd fsgqa

# `make install PREFIX=/usr/local DESTDIR=`: the program, the library with
# its soname, the public headers in include/flashlab/, flashlab.pc, and the
# device presets in share/flashlab/ (where the program finds them).
# The mount helper goes to SBINDIR: mount(8) looks for helpers in /sbin (and
# /sbin/fs.d, /sbin/fs) only, so that is the default for a system prefix.
PREFIX  ?= /usr/local
DESTDIR ?=
LIBDIR  := $(DESTDIR)$(PREFIX)/lib
SBINDIR ?= $(if $(filter /usr /usr/local,$(PREFIX)),/sbin,$(PREFIX)/sbin)
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/include/flashlab
	install -m 755 $(BUILD)/flashlab $(DESTDIR)$(PREFIX)/bin/flashlab
	install -d $(DESTDIR)$(SBINDIR)
	sed 's|@BINDIR@|$(PREFIX)/bin|g' scripts/mount.fuse.flashlab.in > $(DESTDIR)$(SBINDIR)/mount.fuse.flashlab
	chmod 755 $(DESTDIR)$(SBINDIR)/mount.fuse.flashlab
	install -m 755 $(BUILD)/libflashlab.so $(LIBDIR)/libflashlab.so.$(RELEASE)
	ln -sf libflashlab.so.$(RELEASE) $(LIBDIR)/libflashlab.so.$(SOVERSION)
	ln -sf libflashlab.so.$(SOVERSION) $(LIBDIR)/libflashlab.so
	install -m 644 $(PUBLIC_HDRS) $(DESTDIR)$(PREFIX)/include/flashlab/
	install -d $(DESTDIR)$(PREFIX)/share/flashlab/configs/devices
	install -m 644 configs/devices/*.yaml $(DESTDIR)$(PREFIX)/share/flashlab/configs/devices/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(RELEASE)|' flashlab.pc.in \
	    > $(LIBDIR)/pkgconfig/flashlab.pc

clean:
	rm -rf $(BUILD)

# ---- fuzzing (fuzz/README.md) ------------------------------------------------
# `make fuzz` builds one libFuzzer binary per target in fuzz/ (clang, with
# ASan+UBSan, the library compiled again with coverage instrumentation) and
# runs each for FUZZ_SECONDS, from the repository root, on a working corpus in
# $(FUZZ_BUILD)/corpus/<target> seeded from fuzz/corpus/<target>; crashes go to
# $(FUZZ_BUILD)/crashes/, logs to $(FUZZ_BUILD)/<target>.log.  `make fuzz-build`
# only builds; FUZZ_TARGETS=... picks targets.  Not part of `make test`, which
# replays fuzz/corpus/ and fuzz/regressions/ (tests/workloads/test_fuzz_regress.c).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TIMEOUT ?= 25
FUZZ_RSS_MB  ?= 2048
FUZZ_ARGS    ?=
FUZZ_BUILD   := $(BUILD)/fuzz
FUZZ_TARGETS ?= device_yaml experiment_yaml trace mount image import journal jffs2
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := $(CSTD) $(WARN) $(PKG_CFLAGS) -MMD -MP -DFLASHLAB_VERSION='"$(VERSION)"' \
                -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link

FUZZ_SRC     := $(filter-out fuzz/libfuzzer_main.c,$(wildcard fuzz/*.c))
FUZZ_OBJ     := $(FUZZ_SRC:%.c=$(FUZZ_BUILD)/obj/%.o) $(LIB_SRC:%.c=$(FUZZ_BUILD)/obj/%.o)
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

.PHONY: fuzz fuzz-build
.SECONDARY: $(FUZZ_OBJ)
$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(call incs_of,$<) -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: fuzz/libfuzzer_main.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(filter-out -MMD -MP,$(FUZZ_CFLAGS)) $(INC.fuzz) -fsanitize=fuzzer -DFUZZ_TARGET='"$*"' \
	    fuzz/libfuzzer_main.c $(FUZZ_OBJ) -o $@ $(LIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@mkdir -p $(FUZZ_BUILD)/crashes
	@failed=""; for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(FUZZ_BUILD)/corpus/$$t; \
	    dict=""; [ -f fuzz/dict/$$t.dict ] && dict="-dict=fuzz/dict/$$t.dict"; \
	    echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
	    $(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=$(FUZZ_TIMEOUT) \
	        -rss_limit_mb=$(FUZZ_RSS_MB) -print_final_stats=1 $$dict \
	        -artifact_prefix=$(FUZZ_BUILD)/crashes/$$t- $(FUZZ_ARGS) \
	        $(FUZZ_BUILD)/corpus/$$t fuzz/corpus/$$t \
	        > $(FUZZ_BUILD)/$$t.log 2>&1 || failed="$$failed $$t"; \
	    tail -n 12 $(FUZZ_BUILD)/$$t.log | grep -E 'stat::|Done|ERROR|SUMMARY|fuzz:' || true; \
	done; \
	if [ -n "$$failed" ]; then \
	    echo "fuzz: failures in:$$failed (logs in $(FUZZ_BUILD)/, inputs in $(FUZZ_BUILD)/crashes/)"; \
	    exit 1; \
	fi

# Stamp files hold what the last build used, so that a change rebuilds
# what depends on it: the compiler flags (every object), and
# FLASHLAB_VERSION, which names the commit (only the files that use it).
FLAGS_STAMP   := $(BUILD)/flags.stamp
VERSION_STAMP := $(BUILD)/version.stamp
VERSION_USERS := $(shell grep -l FLASHLAB_VERSION $(LIB_SRC) $(CLI_SRC) $(TEST_SRC) 2>/dev/null)
stamp = @mkdir -p $(dir $@); echo '$(1)' | cmp -s - $@ || echo '$(1)' > $@
$(FLAGS_STAMP): FORCE
	$(call stamp,$(CC) $(CSTD) $(WARN) $(CFLAGS) $(LIB_VIS) $(SAN) $(CHECKS) $(PKG_CFLAGS))
$(VERSION_STAMP): FORCE
	$(call stamp,$(VERSION))
$(LIB_OBJ) $(SAN_LIB_OBJ) $(CLI_OBJ): $(FLAGS_STAMP)
$(foreach f,$(filter-out tests/%,$(VERSION_USERS)),$(BUILD)/obj/$(f:.c=.o) $(BUILD)/san/$(f:.c=.o)) \
$(patsubst tests/%.c,$(BUILD)/tests/%,$(filter tests/%,$(VERSION_USERS))): $(VERSION_STAMP)
.PHONY: FORCE
FORCE:

# header dependencies, as the compiler found them (-MMD -MP)
-include $(shell find $(BUILD)/obj $(BUILD)/san $(BUILD)/tests $(BUILD)/bench \
                       $(FUZZ_BUILD)/obj -name '*.d' 2>/dev/null)
