#!/bin/sh
# The flashlab CLI's sim commands: help, create/info/write/read round trips,
# and clear errors with non-zero exits for bad input.
. "$(dirname "$0")/lib.sh"
DEV=configs/devices/test-64m.yaml

expect 0 "top-level help" "usage: flashlab" -- $FL --help
expect 2 "no command" "usage: flashlab" -- $FL
expect 2 "unknown command" "unknown command 'frobnicate'" -- $FL frobnicate
expect 0 "sim help" "create" -- $FL sim --help
expect 0 "sim create help" "usage: flashlab sim create" -- $FL sim create --help
expect 0 "sim info help" "usage: flashlab sim info" -- $FL sim info --help
expect 0 "version" "flashlab 0" -- $FL --version

expect 0 "create" "created $T/a.img" -- $FL sim create --device $DEV "$T/a.img"
expect 1 "create refuses to overwrite" "already exists" -- $FL sim create --device $DEV "$T/a.img"
expect 0 "create --force" "created" -- $FL sim create --device $DEV --force --seed 7 "$T/a.img"
expect 0 "info" "seed 7" -- $FL sim info "$T/a.img"
expect 0 "info capacity" "64 MiB" -- $FL sim info "$T/a.img"
expect 0 "info: an SLC part has no pairing" "pairing:    none" -- $FL sim info "$T/a.img"
expect 0 "create MLC" "" -- $FL sim create --device configs/devices/mlc-2g.yaml "$T/m.img"
expect 0 "info: MLC pairing and upper-page timings" \
    "pairs with lower p - 2 .*upper tR 64000 ns, tPROG 2300000 ns" -- $FL sim info "$T/m.img"
expect 0 "erase" "status: success" -- $FL sim erase "$T/a.img" 3
expect 0 "write" "status: success" -- $FL sim write "$T/a.img" 3 0 --byte 0x5a
expect 0 "read back" "000000     5a 5a 5a" -- $FL sim read "$T/a.img" 3 0
# the test part allows NOP = 4 partial programs of a page; the fifth is refused
expect 0 "partial program 2" "status: success" -- $FL sim write "$T/a.img" 3 0 --byte 0x5a
expect 0 "partial program 3" "status: success" -- $FL sim write "$T/a.img" 3 0 --byte 0x5a
expect 0 "partial program 4" "status: success" -- $FL sim write "$T/a.img" 3 0 --byte 0x58
expect 1 "fifth program is a violation, and fails" "too many partial programs" -- $FL sim write "$T/a.img" 3 0 --byte 0
expect 0 "partial programs AND" "000000     58 58 58" -- $FL sim read "$T/a.img" 3 0
expect 0 "violation persisted" "1 nop" -- $FL sim info "$T/a.img"
expect 0 "wear persisted" "in use" -- $FL sim info --blocks "$T/a.img"

expect 2 "create without --device" "--device is required" -- $FL sim create "$T/b.img"
expect 1 "missing device file" "nope.yaml" -- $FL sim create --device "$T/nope.yaml" "$T/b.img"
printf 'geometry: {page_size: abc}\n' > "$T/bad.yaml"
expect 1 "bad yaml names file:line:col" "bad.yaml:1:" -- $FL sim create --device "$T/bad.yaml" "$T/b.img"
expect 1 "missing image" "cannot open" -- $FL sim info "$T/missing.img"
printf 'not an image at all' > "$T/junk.img"
expect 1 "junk image" "not a flashlab device image" -- $FL sim info "$T/junk.img"
head -c 300 "$T/a.img" > "$T/trunc.img"
expect 1 "truncated image" "trunc.img: " -- $FL sim info "$T/trunc.img"
expect 2 "block out of range" "bad block" -- $FL sim erase "$T/a.img" 999999
expect 2 "page out of range" "bad page" -- $FL sim read "$T/a.img" 1 64
expect 2 "errors name the whole subcommand" "^flashlab sim write: expected IMAGE and BLOCK PAGE" -- $FL sim write "$T/a.img" 1
expect 2 "bad option" "Try 'flashlab sim info --help'" -- $FL sim info --bogus "$T/a.img"

echo "test_sim_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
