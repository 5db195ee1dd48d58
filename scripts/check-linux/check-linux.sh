#!/bin/sh
# check-linux.sh -- `make check-linux`: flashlab's JFFS2 against Linux's.
#
# usage: sh scripts/check-linux/check-linux.sh        (from the repository root,
#        as root; `make check-linux` builds flashlab first and runs this)
#
# Boots Debian's kernel (linux-image-amd64, unpacked from its .deb) under
# qemu (TCG, one CPU) with a small initramfs: busybox-static, mtd-utils'
# flash_erase, nandwrite and nanddump with their shared libraries, a static
# mount timer (mnttime.c), and the modules mtd, nandcore, nand, nandsim and
# jffs2.  nandsim is loaded as the OLPC XO-1 part (configs/devices/
# olpc-xo1-slc-1g.yaml, which has no ID field: ID bytes ec d3 51 95 give
# its 1 GiB of 2 KiB pages and 128 KiB blocks, checked in the guest's log),
# with the device file's delays and the image's factory-bad blocks
# (badblocks=).  Guest side: guest-init.sh.  docs/linux-check.md
# has the method and docs/mount-latency.md the figures.
#
#  1. flashlab makes a JFFS2 image of a tree (TREES, below) with zlib on the
#     1 GiB part (`flashlab put -r`), and a second one with erase-block
#     summaries from it with sumtool; flashlab measures both mounts
#     (`flashlab df --mount-cost`, jffs2-scan and jffs2-summary).
#  2. In the guest each image is written to nandsim (flash_erase -j, then
#     nandwrite of the raw data, the kernel computing the ECC) and mounted
#     by Linux's JFFS2: once read-only with nandsim's log on, to count the
#     mount's read commands (x 76 us = its flash time on nandsim), and
#     timed once with do_delays=1 and once with 0.  The checks, within 30%
#     of Linux's: flashlab's flash time at nandsim's prices (the same pages
#     imported into olpc-xo1-slc-1g-nandsim.yaml) and flashlab's reads; its
#     flash time at the chip's prices is reported.
#  3. With delays off, the plain image's tree is checksummed and compared
#     with the source; Linux writes files; nanddump reads the chip back, and
#     flashlab imports the dump and reads Linux's files byte-identical.
#
# Environment: TREES (host directories copied to /<basename> in the image;
# default "/usr/share/doc /usr/share/man"), FL (the flashlab binary,
# default build/flashlab), B (work directory, default build/linux),
# QEMU_MEM (default 768M), KEEP=1 keeps the dump and its import,
# SKIP_GUEST=1 checks the last run's guest results again (no qemu).
# Everything downloaded or made goes under build/.  The last line is
# "check-linux: N passed, N failed".
set -eu
FL=${FL:-build/flashlab}
B=${B:-build/linux}
TREES=${TREES:-"/usr/share/doc /usr/share/man"}
QEMU_MEM=${QEMU_MEM:-768M}
DEV=configs/devices/olpc-xo1-slc-1g.yaml
DEV_NANDSIM=configs/devices/olpc-xo1-slc-1g-nandsim.yaml
HERE=scripts/check-linux
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
die() { echo "check-linux: $*" >&2; echo "check-linux: $passed passed, $((failed + 1)) failed"; exit 1; }
[ -x "$FL" ] || die "$FL missing: run make first"
[ "$(id -u)" -eq 0 ] || die "needs root (apt-get, and files owned by anyone in the trees)"
mkdir -p "$B"

# ---- 1. the tools: qemu installed; kernel and busybox unpacked ----------------
. "$HERE/fetch.sh"

# ---- 2. the images, made and measured by flashlab ------------------------------
. "$HERE/images.sh"

# ---- 3. the guest (SKIP_GUEST=1: keep the last run's results) -----------------
if [ "${SKIP_GUEST:-0}" = 1 ] && [ -f "$B/out.tar" ]; then
    echo "check-linux: SKIP_GUEST=1: the guest's results of the last run"
else
    . "$HERE/guest.sh"
fi

# ---- 4. what came back ----------------------------------------------------------
. "$HERE/results.sh"

echo "check-linux: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
