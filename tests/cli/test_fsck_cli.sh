#!/bin/sh
# flashlab fsck: e2fsck's exit codes (0 clean, 1 repaired, 4 errors left,
# 8 operational, 16 usage), --help, one line per problem and a summary, and
# the image file written only when --repair repaired something.
. "$(dirname "$0")/lib.sh"
same() { if cmp -s "$2" "$3"; then ok; else bad "$1: $2 and $3 differ"; fi; }
DEV=configs/devices/test-64m.yaml
I="$T/fs.img"

# ---- usage ------------------------------------------------------------------
expect 0 "top-level help lists fsck" "fsck " -- $FL --help
expect 0 "fsck --help" "usage: flashlab fsck IMAGE" -- $FL fsck --help
expect 0 "fsck --help: exit codes" "1 errors repaired, 4 errors left" -- $FL fsck --help
expect 16 "fsck without an image" "expected one IMAGE" -- $FL fsck
expect 16 "fsck with two images" "expected one IMAGE" -- $FL fsck a b
expect 16 "fsck bad option" "bad option" -- $FL fsck --frobnicate "$I"

# ---- operational errors ----------------------------------------------------------
expect 8 "missing image" "missing.img: cannot open" -- $FL fsck "$T/missing.img"
expect 0 "sim create" "created" -- $FL sim create --device $DEV "$I"
expect 8 "not a LogFS image" "not a LogFS file system" -- $FL fsck "$I"
expect 8 "not a LogFS image, --repair" "fsck failed" -- $FL fsck --repair "$I"
printf 'not an image\n' > "$T/junk.img"
expect 8 "not an image file" "junk.img" -- $FL fsck "$T/junk.img"

# ---- clean ------------------------------------------------------------------------
expect 0 "mkfs" "" -- $FL mkfs "$I"
expect 0 "fresh fs is clean" "0 errors, 0 warnings; seq [0-9]*, 1 inode .*clean" -- $FL fsck "$I"
head -c 300000 /dev/urandom > "$T/rand.bin"
$FL put "$T/rand.bin" "$I:/rand.bin" >/dev/null
$FL mkdir -p "$I:/a/b" >/dev/null
$FL put "$T/rand.bin" "$I:/a/b/copy" >/dev/null
$FL ln "$I:/rand.bin" "$I:/a/hard" >/dev/null
$FL ln -s "$I:/a/b" "$I:/sl" >/dev/null
expect 0 "populated fs is clean" "6 inodes (2 files, 3 directories, 1 symlink)" -- $FL fsck "$I"
expect 0 "-v prints the anchor" "info: anchor seq [0-9]* in block" -- $FL fsck -v "$I"
lacks_info() { out=$($FL fsck "$I" 2>&1); if printf '%s\n' "$out" | grep -q '^info:'; then bad "info lines without -v: $out"; else ok; fi; }
lacks_info
cp "$I" "$T/before.img"
expect 0 "fsck of a clean image" "" -- $FL fsck "$I"
expect 0 "fsck --repair of a clean image" "clean" -- $FL fsck --repair "$I"
same "a clean image is left byte-identical, with or without --repair" "$I" "$T/before.img"

# ---- damage: the superblock in block 0 (repairable from the copy) -------------------
$FL sim erase "$I" 0 >/dev/null
cp "$I" "$T/damaged.img"
expect 4 "erased block 0" "block 0 page 0: no valid superblock (the copy in block [0-9]* is used)" -- $FL fsck "$I"
expect 4 "summary line" "1 error, 0 warnings; .*errors left" -- $FL fsck "$I"
same "fsck without --repair does not write" "$I" "$T/damaged.img"
expect 1 "--repair rewrites it" "no valid superblock .*(repaired)" -- $FL fsck --repair "$I"
if cmp -s "$I" "$T/damaged.img"; then bad "--repair did not save the image"; else ok; fi
expect 0 "clean after the repair" "0 errors" -- $FL fsck "$I"
expect 0 "and LogFS reads it" "^rand.bin$" -- $FL ls "$I"

# ---- damage: the whole anchor ring (not repairable) -------------------------------
rings=$($FL fsck -v "$I" | sed -n 's/^info: anchor blocks: *//p')
[ -n "$rings" ] && ok || bad "fsck -v lists the anchor blocks"
for b in $rings; do $FL sim erase "$I" "$b" >/dev/null; done
cp "$I" "$T/noanchor.img"
expect 4 "erased anchor ring" "no valid anchor record in any ring block" -- $FL fsck "$I"
expect 4 "--repair cannot help" "errors left" -- $FL fsck --repair "$I"
same "nothing repaired, nothing saved" "$I" "$T/noanchor.img"

# ---- format 3 (read-only): the golden image --------------------------------------
gunzip -c tests/golden/logfs-v3.img.gz > "$T/v3.img"
cp "$T/v3.img" "$T/v3.orig"
expect 0 "format-3 golden image is clean" "0 errors, 0 warnings; seq [0-9]*, .*clean" -- $FL fsck "$T/v3.img"
expect 0 "format 3 is named read-only" "format version 3: read-only" -- $FL fsck -v "$T/v3.img"
expect 0 "--repair on format 3: clean, nothing written" "clean" -- $FL fsck --repair "$T/v3.img"
same "format-3 image unchanged" "$T/v3.img" "$T/v3.orig"

echo "test_fsck_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
