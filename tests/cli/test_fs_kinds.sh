#!/bin/sh
# The file commands on every kind of file system (fs/fsapi.h): mkfs --fs
# KIND, then a round trip -- mkdir, put, ls, cat, get (byte-compared),
# stat, ln, ln -s, mv, rm, df -- with the kind found by probing (no --fs)
# and with --fs given; a wrong --fs, an erased image ("no file system"),
# mount of an image as the wrong kind, and fsck refusing a baseline image.
. "$(dirname "$0")/lib.sh"
same() { if cmp -s "$2" "$3"; then ok; else bad "$1: $2 and $3 differ"; fi; }
# lacks DESCRIPTION PATTERN -- command...: the command succeeds, output lacks PATTERN
lacks() {
    what=$1; pat=$2; shift 3
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" -ne 0 ]; then bad "$what: exit $rc: $out"; return; fi
    if printf '%s\n' "$out" | grep -q -- "$pat"; then bad "$what: output has '$pat': $out"; return; fi
    ok
}
DEV=configs/devices/test-64m.yaml
KINDS="logfs blockfs jffs2-scan jffs2-summary"

expect 0 "sim create" "created" -- $FL sim create --device $DEV "$T/raw.img"
head -c 150000 /dev/urandom > "$T/rand.bin"
printf 'hello, flash\n' > "$T/hello.txt"

# ---- mkfs --help, wrong kinds -----------------------------------------------
for k in $KINDS; do
    expect 0 "mkfs --help lists $k" "^  $k " -- $FL mkfs --help
done
expect 0 "mkfs --help has an --fs example" "flashlab mkfs --force --fs" -- $FL mkfs --help
for c in ls cat put get mkdir rm rmdir ln mv df stat; do
    expect 0 "$c --help shows --fs" "\-\-fs KIND" -- $FL $c --help
    expect 0 "$c --help has an --fs example" "^ *\(example: \)\?flashlab $c .*--fs" -- $FL $c --help
done
cp "$T/raw.img" "$T/x.img"
expect 2 "mkfs --fs of an unknown kind" "unknown file system 'ext4' (one of: logfs, blockfs, jffs2-scan, jffs2-summary, ftl)" -- $FL mkfs --fs ext4 "$T/x.img"
expect 2 "ls --fs of an unknown kind" "unknown file system 'ext4'" -- $FL ls --fs ext4 "$T/x.img"
expect 2 "a LogFS flag with another kind" "--anchor-blocks is not an option of blockfs" -- $FL mkfs --fs blockfs --anchor-blocks 4 "$T/x.img"
expect 2 "bad -o for a baseline" "jffs2-scan: bad option .colour=red." -- $FL mkfs --fs jffs2-scan -o colour=red "$T/x.img"
same "failed mkfs leave the image alone" "$T/raw.img" "$T/x.img"
expect 1 "an erased image holds no file system" "x.img: no file system found (tried blockfs, ftl, logfs, jffs2-summary, jffs2-scan); mkfs one or give --fs" -- $FL ls "$T/x.img"
expect 1 "no file system (cat)" "no file system found" -- $FL cat "$T/x.img:/a"
expect 1 "no file system (df)" "no file system found" -- $FL df "$T/x.img"
expect 1 "--fs on an erased image" "not a blockfs file system (run flashlab mkfs --fs blockfs)" -- $FL ls --fs blockfs "$T/x.img"

# ---- a round trip on every kind ---------------------------------------------
for k in $KINDS; do
    I="$T/$k.img"
    cp "$T/raw.img" "$I"
    expect 0 "$k: mkfs" "$k\|LogFS" -- $FL mkfs --fs "$k" "$I"
    expect 0 "$k: ls of an empty fs" "" -- $FL ls "$I"
    [ -z "$($FL ls "$I")" ] && ok || bad "$k: an empty fs lists nothing"
    expect 0 "$k: mkdir -p" "" -- $FL mkdir -p "$I:/a/b"
    expect 0 "$k: put" "/a/r.bin: 150000 bytes" -- $FL put "$T/rand.bin" "$I:/a/r.bin"
    expect 0 "$k: put with --fs" "/h.txt: 13 bytes" -- $FL put --fs "$k" "$T/hello.txt" "$I:/h.txt"
    expect 0 "$k: ls" "^r.bin$" -- $FL ls "$I:/a"
    expect 0 "$k: ls -l" "^-rw-.* 150000 [0-9-]* [0-9:]* r.bin$" -- $FL ls -l "$I:/a"
    expect 0 "$k: ls -l --fs" "^d.* a$" -- $FL ls -l --fs "$k" "$I"
    expect 0 "$k: cat" "^hello, flash$" -- $FL cat "$I:/h.txt"
    expect 0 "$k: get" "" -- $FL get "$I:/a/r.bin" "$T/back.bin"
    same "$k: get returns what put stored" "$T/rand.bin" "$T/back.bin"
    expect 0 "$k: stat" "size: *150000 bytes" -- $FL stat "$I:/a/r.bin"
    expect 0 "$k: stat of a directory" "type: *directory" -- $FL stat --fs "$k" "$I:/a/b"
    out=$($FL ln "$I:/a/r.bin" "$I:/hard" 2>&1); rc=$?
    if [ $rc -eq 0 ]; then
        expect 0 "$k: ln: nlink 2" "nlink: *2" -- $FL stat "$I:/hard"
        $FL get "$I:/hard" "$T/hard.bin"
        same "$k: a hard link reads the data" "$T/rand.bin" "$T/hard.bin"
    else
        printf '%s\n' "$out" | grep -q "does not support" && ok || bad "$k: ln failed unclearly: $out"
    fi
    out=$($FL ln -s "$I:/a/b" "$I:/sl" 2>&1); rc=$?
    if [ $rc -eq 0 ]; then
        expect 0 "$k: ls -l shows the symlink" "sl -> /a/b$" -- $FL ls -l "$I"
    else
        printf '%s\n' "$out" | grep -q "does not support" && ok || bad "$k: ln -s failed unclearly: $out"
    fi
    expect 0 "$k: mv into a directory" "" -- $FL mv "$I:/h.txt" "$I:/a/b"
    expect 0 "$k: mv moved it" "^h.txt$" -- $FL ls "$I:/a/b"
    expect 0 "$k: mv keeps the data" "^hello, flash$" -- $FL cat "$I:/a/b/h.txt"
    expect 1 "$k: a missing file" "no such file: /nope" -- $FL cat "$I:/nope"
    expect 1 "$k: rm of a full dir without -r" "directory not empty (use rm -r): /a" -- $FL rm "$I:/a"
    expect 0 "$k: rm -r" "" -- $FL rm -r "$I:/a"
    lacks "$k: rm -r: gone" "^a$" -- $FL ls "$I"
    expect 0 "$k: df total" "total: *[0-9]* bytes" -- $FL df "$I"
    expect 0 "$k: df free" "free: *[0-9]* bytes" -- $FL df --fs "$k" "$I"
    expect 0 "$k: df files" "files: *[0-9]" -- $FL df "$I"
    cp "$I" "$T/before.img"
    expect 0 "$k: read-only ls" "" -- $FL ls -l "$I"
    expect 0 "$k: read-only df" "" -- $FL df "$I"
    same "$k: read-only commands leave the image alone" "$I" "$T/before.img"
    expect 1 "$k: mkfs refuses an existing fs" \
        "$k.img: already holds a $k file system ([0-9]* files\?, [0-9.]* MiB used of [0-9.]* MiB); use --force to overwrite it" \
        -- $FL mkfs "$I"
    same "$k: a refused mkfs leaves the image alone" "$I" "$T/before.img"
done
# --force replaces any kind with any other
expect 0 "mkfs --force over blockfs" "jffs2-scan" -- $FL mkfs --force --fs jffs2-scan "$T/blockfs.img"
expect 0 "the new kind is there" "fs: *jffs2-scan" -- $FL df "$T/blockfs.img"
expect 1 "mkfs refuses it then" "already holds a jffs2-scan file system" -- $FL mkfs --fs blockfs "$T/blockfs.img"
expect 0 "mkfs --force back" "blockfs" -- $FL mkfs --fs blockfs --force "$T/blockfs.img"
expect 0 "logfs df keeps its commits line" "commits:" -- $FL df "$T/logfs.img"
expect 0 "a baseline's df names it" "fs: *blockfs" -- $FL df "$T/blockfs.img"

# ---- --fs overrides the probe; fsck refuses baselines -----------------------
expect 1 "--fs logfs on a blockfs image" "not a logfs file system" -- $FL ls --fs logfs "$T/blockfs.img"
expect 1 "--fs blockfs on a jffs2 image" "not a blockfs file system" -- $FL ls --fs blockfs "$T/jffs2-scan.img"
for k in blockfs jffs2-scan jffs2-summary; do
    expect 8 "fsck of a $k image" "$k.img holds $k, fsck checks LogFS only" -- $FL fsck "$T/$k.img"
done
expect 0 "fsck of the LogFS image" "" -- $FL fsck "$T/logfs.img"

echo "test_fs_kinds: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
