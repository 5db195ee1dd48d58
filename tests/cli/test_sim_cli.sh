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


# export/import: nanddump (data + OOB) and raw (data only) files for mtd-utils
expect 0 "sim export help" "nanddump --oob --noecc" -- $FL sim export --help
expect 0 "sim import help" "usage: flashlab sim import" -- $FL sim import --help
expect 0 "create for export" "" -- $FL sim create --device $DEV "$T/x.img"
expect 0 "write with OOB" "status: success" -- $FL sim write "$T/x.img" 1 0 --byte 0x3c
expect 0 "write page 2" "status: success" -- $FL sim write "$T/x.img" 1 2 --byte 0x00
expect 0 "export nanddump" "exported" -- $FL sim export "$T/x.img" "$T/x.nd"
expect 0 "export raw" "exported" -- $FL sim export --format raw "$T/x.img" "$T/x.raw"
if [ "$(wc -c < "$T/x.nd")" -eq $((512 * 64 * 2112)) ] &&
   [ "$(wc -c < "$T/x.raw")" -eq $((512 * 64 * 2048)) ]; then ok; else bad "export sizes"; fi
expect 0 "import nanddump" "2 pages programmed" -- $FL sim import --device $DEV "$T/x.nd" "$T/y.img"
expect 0 "imported data" "000000     3c 3c 3c" -- $FL sim read "$T/y.img" 1 0
expect 0 "imported page 2" "000000     00 00 00" -- $FL sim read "$T/y.img" 1 2
expect 0 "re-export" "" -- $FL sim export "$T/y.img" "$T/y.nd"
if cmp -s "$T/x.nd" "$T/y.nd"; then ok; else bad "nanddump round trip is byte for byte"; fi
expect 0 "erased page stays erased" "status: success" -- $FL sim write "$T/y.img" 1 3 --byte 0x11
expect 0 "import raw" "2 pages programmed" -- $FL sim import --device $DEV --format raw "$T/x.raw" "$T/z.img"
expect 0 "raw import data" "000000     3c 3c 3c" -- $FL sim read "$T/z.img" 1 0
expect 0 "raw import erases OOB" "000800 oob ff ff ff" -- $FL sim read "$T/z.img" 1 0
expect 1 "import refuses to overwrite" "z.img: already exists" -- $FL sim import --device $DEV --format raw "$T/x.raw" "$T/z.img"
expect 0 "import --force" "imported" -- $FL sim import --device $DEV --format raw --force "$T/x.raw" "$T/z.img"
head -c 1234567 "$T/x.nd" > "$T/t.nd"
expect 1 "truncated nanddump names size and unit" \
    "t.nd: 1234567 bytes is not a whole number of 2112-byte pages (2048 + 64 OOB) of test-64m" \
    -- $FL sim import --device $DEV "$T/t.nd" "$T/t.img"
expect 1 "nanddump imported as raw is refused" "is larger than test-64m" \
    -- $FL sim import --device $DEV --format raw "$T/x.nd" "$T/t.img"
cat "$T/x.raw" "$T/x.raw" > "$T/big.raw"
expect 1 "file larger than the device" "big.raw: 134217728 bytes is larger than" \
    -- $FL sim import --device $DEV --format raw "$T/big.raw" "$T/t.img"
if [ -e "$T/t.img" ]; then bad "a failed import leaves no image"; else ok; fi
expect 1 "missing input" "nope.nd: cannot open" -- $FL sim import --device $DEV "$T/nope.nd" "$T/t.img"
expect 2 "import without --device" "--device is required" -- $FL sim import "$T/x.nd" "$T/t.img"
expect 2 "unknown format" "unknown format 'jffs2'" -- $FL sim export --format jffs2 "$T/x.img" "$T/o"
expect 2 "export arguments" "^flashlab sim export: expected IMAGE and OUT" -- $FL sim export "$T/x.img"

echo "test_sim_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
