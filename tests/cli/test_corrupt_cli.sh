#!/bin/sh
# flashlab sim corrupt (docs/simulator.md "Damage injection"): every mode's
# effect as `sim read` shows it, clear errors for bad block and page
# numbers, the damaged image still a valid image, a damaged LogFS file
# giving EIO while the others read; and two exits: a failed merge leaves
# no output file, `sim write` fails when the NAND status does.
. "$(dirname "$0")/lib.sh"
DEV=configs/devices/test-64m.yaml
I="$T/a.img"

expect 0 "help" "usage: flashlab sim corrupt" -- $FL sim corrupt --help
expect 0 "listed in sim's help" "corrupt" -- $FL sim --help
expect 0 "create" "created" -- $FL sim create --device $DEV "$I"
for p in 0 1 2 3 4 5 6; do
    $FL sim write "$I" 5 $p --byte 0x33 >/dev/null || bad "sim write 5 $p"
done

# ---- bad input ------------------------------------------------------------------
expect 2 "unknown mode" "unknown mode 'sideways'" -- $FL sim corrupt "$I" --block 5 --page 0 sideways
expect 2 "no mode" "expected IMAGE and MODE" -- $FL sim corrupt "$I" --block 5 --page 0
expect 2 "page needed" "needs --block and --page" -- $FL sim corrupt "$I" --block 5 flip
expect 2 "bad block number" "bad block 'x'" -- $FL sim corrupt "$I" --block x --page 0 flip
expect 2 "bad fraction" "bad fraction '2'" -- $FL sim corrupt "$I" --block 5 --page 0 tear --frac 2
expect 1 "block out of range" "a.img: block 99999 is out of range (the device has 512 blocks)" \
    -- $FL sim corrupt "$I" --block 99999 --page 0 flip
expect 1 "page out of range" "a.img: page 64 is out of range (blocks have 64 pages)" \
    -- $FL sim corrupt "$I" --block 5 --page 64 silent
expect 1 "erased page" "block 5 page 9 is erased" -- $FL sim corrupt "$I" --block 5 --page 9 uncorrectable
expect 1 "missing image" "cannot open" -- $FL sim corrupt "$T/none.img" --block 5 --page 0 flip

# ---- each mode, seen through sim read ----------------------------------------------
expect 0 "flip" "damaged block 5 page 0" -- $FL sim corrupt "$I" --block 5 --page 0 flip --bits 1
expect 0 "flip: corrected" "corrected bits: 1, raw bit errors: 1" -- $FL sim read "$I" 5 0
expect 0 "flip: data right" "000000     33 33 33" -- $FL sim read "$I" 5 0
expect 0 "flip: raw read shows it" "raw bit errors: 1" -- $FL sim read --raw "$I" 5 0
expect 0 "beyond" "" -- $FL sim corrupt "$I" --block 5 --page 1 beyond
expect 0 "beyond: uncorrectable" "status: uncorrectable ECC error" -- $FL sim read "$I" 5 1
expect 0 "uncorrectable" "" -- $FL sim corrupt "$I" --block 5 --page 2 uncorrectable
expect 0 "uncorrectable: read fails" "status: uncorrectable ECC error" -- $FL sim read "$I" 5 2
expect 0 "silent" "" -- $FL sim corrupt "$I" --block 5 --page 3 silent --bits 8 --offset 0 --length 1 --seed 3
expect 0 "silent: ECC passes" "status: success" -- $FL sim read "$I" 5 3
expect 0 "silent: one byte changed" "000000     cc 33 33" -- $FL sim read "$I" 5 3
expect 0 "wipe" "" -- $FL sim corrupt "$I" --block 5 --page 4 wipe
expect 0 "wipe: reads erased" "000000     ff ff ff" -- $FL sim read "$I" 5 4
expect 0 "tear" "" -- $FL sim corrupt "$I" --block 5 --page 5 tear --frac 0.5
expect 0 "tear: uncorrectable" "status: uncorrectable ECC error" -- $FL sim read "$I" 5 5
expect 0 "bad" "block 7 is now a grown bad block" -- $FL sim corrupt "$I" --block 7 bad
expect 0 "bad: listed" "grown" -- $FL sim info --blocks "$I"
# item 8: a failed NAND status fails the command
expect 1 "sim write to a bad block fails" "status: program failed" -- $FL sim write "$I" 7 0
expect 1 "sim erase of a bad block fails" "status: erase failed" -- $FL sim erase "$I" 7
expect 1 "sim write out of order fails" "out of order" -- $FL sim write "$I" 5 3
expect 0 "age" "aged 8760 hours, 1000 reads on every block" -- \
    $FL sim corrupt "$I" age --hours 8760 --reads 1000
expect 0 "age one block" "on the block" -- $FL sim corrupt "$I" --block 5 age --reads 50
expect 1 "age: block out of range" "block 600 is out of range" -- $FL sim corrupt "$I" --block 600 age --hours 1
# the image is still an image, and the damage is in it
expect 0 "info after all that" "test-64m" -- $FL sim info "$I"
expect 0 "damage kept" "corrected bits: 1" -- $FL sim read "$I" 5 0
# deterministic: the same commands on a copy give the same image
$FL sim create --device $DEV "$T/b.img" >/dev/null
$FL sim create --device $DEV "$T/c.img" >/dev/null
for img in "$T/b.img" "$T/c.img"; do
    $FL sim write "$img" 5 0 --byte 0x44 >/dev/null
    $FL sim corrupt "$img" --block 5 --page 0 silent --bits 5 --seed 9 >/dev/null
    $FL sim corrupt "$img" --block 5 --page 0 flip --bits 1 --seed 9 >/dev/null
done
cmp -s "$T/b.img" "$T/c.img" && ok || bad "the same damage twice gives different images"

# ---- LogFS on a damaged image: EIO on that file only ------------------------------
L="$T/l.img"
$FL sim create --device $DEV "$L" >/dev/null && $FL mkfs "$L" >/dev/null || bad "mkfs"
head -c 6000 /dev/zero | tr '\0' 'Z' > "$T/z"
echo other > "$T/o"
expect 0 "put z" "" -- $FL put "$T/z" "$L:/z"
expect 0 "put o" "" -- $FL put "$T/o" "$L:/o"
# the page where /z's data starts: a page with a run of 'Z' (0x5a)
zb=""; zp=""
for b in 1 2 3 4 5 6 7 8 9 10 11 12; do
    for p in 0 1 2; do
        if $FL sim read "$L" $b $p 2>/dev/null | grep -q "5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a"; then
            zb=$b; zp=$p; break 2
        fi
    done
done
if [ -n "$zb" ]; then ok; else bad "no page of /z found"; zb=1; zp=0; fi
expect 0 "corrupt /z's page" "" -- $FL sim corrupt "$L" --block $zb --page $zp silent --offset 1000 --length 16
expect 1 "cat /z: EIO, never wrong bytes" "input/output error: /z" -- $FL cat "$L:/z"
expect 0 "cat /o still reads" "other" -- $FL cat "$L:/o"
expect 0 "and writing goes on" "" -- $FL put "$T/o" "$L:/o2"
expect 4 "fsck names the page" "block $zb page $zp" -- $FL fsck "$L"

# an unreadable segment-file block: reads go on, the first change fails,
# and the command says the file system went read-only.  Every page holding
# the header of segment-file block 0 (type 1, inode 1, block 0: FORMAT.md
# section 8), and the page after it, made unreadable
hexpage() { $FL sim read "$1" $2 $3 2>/dev/null | sed -n 's/^[0-9a-f]\{6\}     //p' | tr -d ' \n'; }
found=0
for b in $(seq 5 30); do
    p=0
    while [ $p -lt 64 ]; do
        h=$(hexpage "$L" $b $p)
        case "$h" in ffffffffffffffffffffffffffffffff*) break ;; esac
        if printf '%s' "$h" | grep -Eq '4f424a01.{24}01000000000000000000000000000000'; then
            $FL sim corrupt "$L" --block $b --page $p uncorrectable >/dev/null
            $FL sim corrupt "$L" --block $b --page $((p + 1)) uncorrectable >/dev/null 2>&1
            found=$((found + 1))
        fi
        p=$((p + 1))
    done
done
[ $found -gt 0 ] && ok || bad "no page of segment-file block 0 found"
expect 0 "segment file unreadable: reads go on" "other" -- $FL cat "$L:/o"
expect 1 "segment file unreadable: a change fails, read-only" \
    "warning: the commit met unreadable metadata" -- $FL put "$T/o" "$L:/o3"
expect 0 "and /o is still there" "other" -- $FL cat "$L:/o"
expect 1 "the change was not saved" "no such file" -- $FL cat "$L:/o3"
expect 4 "fsck names the segment-file block" "holding segment file block 0" -- $FL fsck "$L"

# ---- merge: a failed merge leaves no output ------------------------------------------
echo junk > "$T/junk.db"
expect 1 "merge of a non-database fails" "not written" -- $FL merge "$T/out.db" "$T/junk.db"
[ ! -e "$T/out.db" ] && ok || bad "a failed merge left $T/out.db"
expect 1 "merge of a missing input fails" "not written" -- $FL merge "$T/out.db" "$T/none.db"
[ -z "$(ls "$T" | grep '^out\.db')" ] && ok || bad "a failed merge left $(ls "$T" | grep '^out')"

echo "test_corrupt_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
