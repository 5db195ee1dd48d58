#!/bin/sh
# The anchor ring under media damage, through the CLI (docs/FORMAT.md 6.3):
# three bytes changed in page 0 of the ring block that holds the newest
# records -- an older record of that block -- and every command still
# mounts the newest commit, silently as it should; the newest record
# damaged, and the commands mount the one before it and say so on stderr,
# and fsck reports it.  A grown bad block in the ring is skipped with a
# warning, and when no pair of good ring blocks is left the fs is
# read-only, also with a warning.
. "$(dirname "$0")/lib.sh"
DEV=configs/devices/test-64m.yaml
I="$T/a.img"

# page_bin IMAGE BLOCK PAGE OUT: the page's data bytes into OUT (the hex
# dump of `flashlab sim read`, through octal escapes for printf)
page_bin() {
    $FL sim read "$1" "$2" "$3" | awk '
        BEGIN { for (i = 0; i < 256; i++) hex[sprintf("%02x", i)] = i }
        /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]     / {
            for (i = 2; i <= NF; i++) printf "\\%03o", hex[$i] }' > "$4.esc"
    printf "$(cat "$4.esc")" > "$4"
}
# damage IMAGE BLOCK PAGE: rewrite BLOCK with three bytes of PAGE changed
# (the page reads back without an ECC error; its record's CRC fails)
damage() {
    p=0
    while :; do
        page_bin "$1" "$2" $p "$T/p$p" || return 1
        [ "$(od -An -tx1 -N16 "$T/p$p" | tr -d ' \n')" = ffffffffffffffffffffffffffffffff ] && break
        p=$((p + 1))
    done
    n=$p
    # three bytes at offset 500 (inside the segment-file inode record)
    printf '\132\001\200' | dd of="$T/p$3" bs=1 seek=500 conv=notrunc 2>/dev/null
    $FL sim erase "$1" "$2" >/dev/null || return 1
    p=0
    while [ $p -lt $n ]; do
        $FL sim write "$1" "$2" $p --file "$T/p$p" >/dev/null || return 1
        p=$((p + 1))
    done
}
# ring_pages IMAGE BLOCK: programmed pages of BLOCK
ring_pages() {
    p=0
    while [ "$($FL sim read "$1" "$2" $p | sed -n 's/^000000     //p')" != \
            "ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff" ]; do
        p=$((p + 1))
    done
    echo $p
}

expect 0 "sim create" "created" -- $FL sim create --device $DEV "$I"
expect 0 "mkfs" "logfs, block size" -- $FL mkfs "$I"
echo hello > "$T/f"
for n in 1 2 3 4 5; do
    expect 0 "put $n" "" -- $FL put "$T/f" "$I:/f$n"
done
# mkfs's record is page 0 of block 1; every command since wrote on in block 2
n2=$(ring_pages "$I" 2)
[ "$n2" -ge 6 ] && ok || bad "block 2 holds $n2 records, expected several"
cp "$I" "$T/clean.img"

# ---- an older record damaged: the newest commit, no warning ------------------
if damage "$I" 2 0; then ok; else bad "damaging block 2 page 0"; fi
out=$($FL ls "$I:/" 2>&1); rc=$?
[ $rc -eq 0 ] && ok || bad "ls after page 0 damaged: exit $rc: $out"
case "$out" in *f5*) ok ;; *) bad "ls after page 0 damaged: f5 missing: $out" ;; esac
case "$out" in *warning*) bad "ls after page 0 damaged warns: $out" ;; *) ok ;; esac
expect 0 "cat after page 0 damaged" "hello" -- $FL cat "$I:/f5"

# ---- the newest record damaged in one mirror: the other holds it -------------
# (format 4: ring blocks 1, 2 are mirror 0, blocks 3, 4 mirror 1)
cp "$T/clean.img" "$I"
last=$(( $(ring_pages "$I" 2) - 1 ))
if damage "$I" 2 $last; then ok; else bad "damaging block 2 page $last"; fi
expect 0 "fsck: one mirror copy damaged is a warning" \
    "warning: block 2 page $last: the mirror copy of anchor seq" -- $FL fsck "$I"
expect 0 "still the newest commit" "hello" -- $FL cat "$I:/f5"

# ---- the newest record damaged in both mirrors: the one before it, a warning --
cp "$T/clean.img" "$I"
if damage "$I" 2 $last && damage "$I" 4 $last; then ok; else bad "damaging blocks 2 and 4 page $last"; fi
expect 0 "fsck reports the damaged newest record" \
    "warning: .*the newest anchor record is damaged or torn: a mount uses seq" -- $FL fsck "$I"
expect 0 "ls warns" "a.img: warning: the newest anchor record is damaged; mounted commit [0-9]*" \
    -- $FL ls "$I:/"
# the newest record was put f5's unmount; the one before, its mount's
expect 0 "files of the commit before it" "hello" -- $FL cat "$I:/f4"
expect 1 "not the newest commit's" "no such file" -- $FL cat "$I:/f5"

# ---- a grown bad block in the ring: skipped, with a warning ----------------------
# block 2 (mirror 0) holds the newest records: the next command's mount
# record fails there, and the ring goes on in blocks 1 and 3
cp "$T/clean.img" "$I"
expect 0 "ring block 2 goes bad" "" -- $FL sim corrupt "$I" --block 2 bad
expect 0 "put warns and goes on" "a.img: warning: 1 anchor ring block went bad; the ring goes on in the others" \
    -- $FL put "$T/f" "$I:/f6"
expect 0 "the file is there" "hello" -- $FL cat "$I:/f6"
expect 0 "fsck: clean" "" -- $FL fsck "$I"
# block 3 (mirror 1 of the logical block the ring moved to) goes bad too:
# no logical block has two good copies left, read-only, said so
expect 0 "ring block 3 goes bad" "" -- $FL sim corrupt "$I" --block 3 bad
expect 1 "put refused, read-only" "no pair of good ring blocks is left" -- $FL put "$T/f" "$I:/f7"
expect 0 "what was committed stays" "hello" -- $FL cat "$I:/f6"

echo "test_anchor_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
