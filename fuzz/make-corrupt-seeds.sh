#!/bin/sh
# make-corrupt-seeds.sh -- the seeds of `flashlab sim corrupt`'s modes:
#   fuzz/corpus/image/corrupt-*.img  fuzz/corpus/image/logfs.img damaged
#       with each mode on anchor-ring and segment pages (its blocks: 0
#       superblock, 1-4 the anchor ring, 5-6 segments);
#   fuzz/corpus/mount/corrupt-*      mutation lists of the mount target
#       using op bit 4 (nand_corrupt; fuzz_mount.c): the base image's
#       ring is blocks 1, 2 (mirror 0) and 3, 4 (mirror 1), the newest
#       record block 1 page 5, segments from block 5 on.
# Run from the repository root after `make`; deterministic (seeds given).
set -e
FL=${FL:-./build/flashlab}
IMG=fuzz/corpus/image
MNT=fuzz/corpus/mount

# ---- images ---------------------------------------------------------------
img() { # NAME BLOCK PAGE MODE [options]
    name=$1 b=$2 p=$3 m=$4
    shift 4
    cp $IMG/logfs.img "$IMG/corrupt-$name.img"
    $FL sim corrupt "$IMG/corrupt-$name.img" --block "$b" --page "$p" "$m" --seed 1 "$@" >/dev/null
}
img anchor-flip 2 1 flip --bits 1
img anchor-beyond 2 1 beyond
img anchor-uncorrectable 2 1 uncorrectable
img anchor-silent 2 1 silent --bits 3 --offset 24 --length 500
img anchor-wipe 2 0 wipe
img anchor-tear 2 1 tear --frac 0.5
img segment-beyond 5 0 beyond --bits 3
img segment-silent 6 0 silent --bits 2 --offset 100 --length 1500
img segment-bad 5 0 bad
cp $IMG/logfs.img $IMG/corrupt-aged.img
$FL sim corrupt $IMG/corrupt-aged.img age --hours 100000 --reads 1000000 >/dev/null

# ---- mount mutation lists ----------------------------------------------------
# one record: op 0x18 (nand_corrupt, global page), page = block * 16 + page
# (u16 LE), offset (u16 LE), value (mode - 1 in its low 3 bits)
rec() { # BLOCK PAGE OFFSET VALUE
    gp=$(( $1 * 16 + $2 ))
    printf "\\030\\$(printf %03o $((gp & 255)))\\$(printf %03o $((gp >> 8)))"
    printf "\\$(printf %03o $(($3 & 255)))\\$(printf %03o $(($3 >> 8)))\\$(printf %03o $4)"
}
flagbyte() { printf "\\$(printf %03o "$1")"; }
modes="flip beyond uncorrectable wipe tear bad age silent"
v=0
for m in $modes; do
    { flagbyte 0; rec 1 5 24 $v; } > "$MNT/corrupt-anchor-newest-$m"
    { flagbyte 8; rec 6 3 700 $v; } > "$MNT/corrupt-segment-$m-modify"
    v=$((v + 1))
done
# the newest record in both mirrors; page 0 of the newest block in both
for v in 2 3 7; do
    { flagbyte 0; rec 1 5 24 $v; rec 3 5 24 $v; } > "$MNT/corrupt-anchor-both-$v"
done
{ flagbyte 0; rec 1 0 0 3; rec 3 0 0 3; } > "$MNT/corrupt-anchor-page0-both-wipe"
# several metadata pages at once, the cleaner running over them
{ flagbyte 24; rec 5 2 100 2; rec 12 7 900 7; rec 40 3 40 3; rec 58 1 1200 4; rec 20 0 0 254; } \
    > "$MNT/corrupt-many-modify-remount"
