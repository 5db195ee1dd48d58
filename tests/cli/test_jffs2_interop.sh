#!/bin/sh
# JFFS2 interoperability with Debian's mtd-utils (docs/jffs2-baseline.md):
#  - a tree packed by mkfs.jffs2 (NAND: -n, 2 KiB pages, 128 KiB erase
#    blocks; with its default zlib/rtime, with no compression, with LZO
#    only), imported raw, listed and read through flashlab's file commands
#    with both JFFS2 kinds, every file byte-identical; the same after
#    sumtool (and probing finds its summaries);
#  - the other way: files written by flashlab's JFFS2 with each compression
#    and both kinds, exported raw, dumped by jffs2dump -c with no complaint,
#    each file's nodes covering its size, and read back after a remount;
#    sumtool over those images, read back with the summaries.
. "$(dirname "$0")/lib.sh"
for tool in mkfs.jffs2 sumtool jffs2dump; do
    if ! command -v $tool >/dev/null 2>&1 && [ ! -x /usr/sbin/$tool ]; then
        echo "test_jffs2_interop: $tool missing (mtd-utils; make deps): skipped"
        echo "test_jffs2_interop: 0 passed, 0 failed"
        exit 0
    fi
done
PATH=$PATH:/usr/sbin
same() { if cmp -s "$2" "$3"; then ok; else bad "$1: $2 and $3 differ"; fi; }

# A 4 MiB part with the test device's geometry (2048 + 64 B pages, 64 pages
# per block) and no factory-bad blocks, so that a raw image maps 1:1.
DEV="$T/dev.yaml"
sed -e 's/^name: .*/name: interop-4m/' -e 's/blocks_per_plane: 512/blocks_per_plane: 32/' \
    -e 's/factory_bad_fraction: .*/factory_bad_fraction: 0/' \
    configs/devices/test-64m.yaml > "$DEV"

# ---- the tree ---------------------------------------------------------------
R="$T/tree"
mkdir -p "$R/sub/deep/er" "$R/empty-dir"
printf 'hello, jffs2\n' > "$R/hello.txt"
head -c 10000 /dev/urandom > "$R/multi.bin"          # several 2 KiB nodes
head -c 300000 /dev/urandom > "$R/sub/big.bin"       # over two erase blocks
seq 1 40000 > "$R/sub/count.txt"                     # compresses well
head -c 20000 /dev/zero > "$R/sub/deep/zeros"
: > "$R/sub/empty"
printf 'deep down\n' > "$R/sub/deep/er/leaf.txt"
ln -s sub/count.txt "$R/link"
ln -s /nowhere "$R/sub/dangling"
FILES="hello.txt multi.bin sub/big.bin sub/count.txt sub/deep/zeros sub/empty sub/deep/er/leaf.txt"

# check_tree NAME IMAGE KIND: every file read back equal, names listed,
# symlinks' targets kept
check_tree() {
    tn=$1; img=$2; tk=$3
    for tf in $FILES; do
        expect 0 "$tn ($tk): get /$tf" "" -- $FL get --fs "$tk" "$img:/$tf" "$T/out"
        same "$tn ($tk): /$tf" "$R/$tf" "$T/out"
    done
    expect 0 "$tn ($tk): ls /" "^multi.bin$" -- $FL ls --fs "$tk" "$img"
    expect 0 "$tn ($tk): ls /sub lists the empty file" "^empty$" -- $FL ls --fs "$tk" "$img:/sub"
    expect 0 "$tn ($tk): ls of an empty directory" "" -- $FL ls --fs "$tk" "$img:/empty-dir"
    expect 0 "$tn ($tk): ls -l shows the size" "^-.* 300000 [0-9-]* [0-9:]* big.bin$" -- $FL ls -l --fs "$tk" "$img:/sub"
    expect 0 "$tn ($tk): a symlink" "target: sub/count.txt" -- $FL stat --fs "$tk" "$img:/link"
    expect 0 "$tn ($tk): a dangling symlink" "target: /nowhere" -- $FL stat --fs "$tk" "$img:/sub/dangling"
    expect 0 "$tn ($tk): cat through the symlink" "^40000$" -- $FL cat --fs "$tk" "$img:/link"
    expect 0 "$tn ($tk): a directory" "type: *directory" -- $FL stat --fs "$tk" "$img:/sub/deep/er"
}

# ---- mkfs.jffs2 -> flashlab ---------------------------------------------------
# name, then mkfs.jffs2's compression options
for variant in "default:" "none:-m none" "lzo:-X lzo -x zlib -x rtime"; do
    n=${variant%%:*}; copts=${variant#*:}
    # shellcheck disable=SC2086
    expect 0 "mkfs.jffs2 ($n)" "" -- mkfs.jffs2 -r "$R" -e 0x20000 -s 0x800 -n -l $copts \
        --pad=0x100000 -o "$T/$n.jffs2"
    expect 0 "$n: import raw" "imported" -- $FL sim import --device "$DEV" --format raw \
        "$T/$n.jffs2" "$T/$n.img"
    expect 0 "$n: probed as jffs2-scan" "jffs2-scan" -- $FL df "$T/$n.img"
    check_tree "mkfs.jffs2 $n" "$T/$n.img" jffs2-scan
    check_tree "mkfs.jffs2 $n" "$T/$n.img" jffs2-summary  # no summaries: scanned
    # sumtool: summary nodes at the end of each full erase block
    expect 0 "sumtool ($n)" "" -- sumtool -e 0x20000 -n -l -p -i "$T/$n.jffs2" -o "$T/$n.sum"
    expect 0 "$n+sumtool: jffs2dump sees summaries" "Inode Sum" -- jffs2dump -c -l "$T/$n.sum"
    expect 0 "$n+sumtool: import raw" "imported" -- $FL sim import --device "$DEV" --format raw \
        "$T/$n.sum" "$T/$n-sum.img"
    expect 0 "$n+sumtool: probed as jffs2-summary" "jffs2-summary" -- $FL df "$T/$n-sum.img"
    check_tree "sumtool $n" "$T/$n-sum.img" jffs2-summary
    check_tree "sumtool $n" "$T/$n-sum.img" jffs2-scan
done
# a written image stays readable by both after flashlab changed it
expect 0 "change a foreign image" "" -- $FL put --fs jffs2-summary "$R/multi.bin" "$T/default-sum.img:/sub/new.bin"
expect 0 "remove in a foreign image" "" -- $FL rm --fs jffs2-summary "$T/default-sum.img:/hello.txt"
expect 0 "foreign image changed: get" "" -- $FL get --fs jffs2-scan "$T/default-sum.img:/sub/new.bin" "$T/out"
same "foreign image changed: new file" "$R/multi.bin" "$T/out"
expect 1 "foreign image changed: removed" "" -- $FL stat --fs jffs2-summary "$T/default-sum.img:/hello.txt"

# ---- flashlab -> jffs2dump ------------------------------------------------------
# covers DUMP NAME SIZE: the newest dirent NAME names an inode whose nodes
# reach SIZE (max offset + dsize) and whose newest node says isize SIZE
covers() {
    awk -v name="$2" -v size="$3" '
        /Dirent/ && $NF == name { for (i = 1; i <= NF; i++) if ($i == "#ino") ino = $(i + 1) + 0 }
        /Inode  *node/ { line[++n] = $0 }
        END {
            if (!ino) { print "no dirent " name; exit 1 }
            end = 0; best = -1; bsize = -1
            for (k = 1; k <= n; k++) {
                nf = split(line[k], f, /[ ,]+/)
                for (i = 1; i <= nf; i++) {
                    if (f[i] == "#ino") id = f[i + 1] + 0
                    if (f[i] == "version") v = f[i + 1] + 0
                    if (f[i] == "isize") is = f[i + 1] + 0
                    if (f[i] == "dsize") ds = f[i + 1] + 0
                    if (f[i] == "offset") of = f[i + 1] + 0
                }
                if (id != ino) continue
                if (of + ds > end) end = of + ds
                if (v > best) { best = v; bsize = is }
            }
            if (end < size || bsize != size) { print name ": nodes reach " end ", isize " bsize; exit 1 }
        }' "$1"
}
for k in jffs2-scan jffs2-summary; do
    for c in none zlib rtime lzo; do
        n="$k-$c"; I="$T/$n.img"
        expect 0 "$n: sim create" "created" -- $FL sim create --device "$DEV" "$I"
        expect 0 "$n: mkfs" "$k" -- $FL mkfs --fs "$k" -o "compress=$c" "$I"
        expect 0 "$n: mkdir" "" -- $FL mkdir -p --fs "$k" "$I:/sub/deep/er"
        for f in $FILES; do
            expect 0 "$n: put /$f" "" -- $FL put --fs "$k" -o "compress=$c" "$R/$f" "$I:/$f"
        done
        expect 0 "$n: ln -s" "" -- $FL ln -s --fs "$k" "$I:/sub/count.txt" "$I:/link"
        expect 0 "$n: export raw" "exported" -- $FL sim export --format raw "$I" "$T/$n.bin"
        jffs2dump -c -l "$T/$n.bin" > "$T/$n.dump" 2>&1
        if grep -qi "wrong\|crc" "$T/$n.dump"; then
            bad "$n: jffs2dump complains: $(grep -i 'wrong\|crc' "$T/$n.dump" | head -3)"
        else ok; fi
        grep -q "Dirent.*name multi.bin" "$T/$n.dump" && ok || bad "$n: jffs2dump lists no dirent for multi.bin"
        if [ "$k" = jffs2-summary ]; then
            grep -q "Inode Sum" "$T/$n.dump" && ok || bad "$n: jffs2dump sees no summary node"
        fi
        for f in $FILES; do
            if msg=$(covers "$T/$n.dump" "$(basename "$f")" "$(wc -c < "$R/$f")"); then ok; else bad "$n: $msg"; fi
        done
        for f in $FILES; do
            expect 0 "$n: get /$f after remount" "" -- $FL get --fs "$k" "$I:/$f" "$T/out"
            same "$n: /$f" "$R/$f" "$T/out"
        done
        # and back: sumtool re-packs flashlab's nodes with summaries
        if [ "$k" = jffs2-scan ]; then
            expect 0 "$n: sumtool over flashlab's image" "" -- sumtool -e 0x20000 -n -l -p \
                -i "$T/$n.bin" -o "$T/$n.sum"
            expect 0 "$n+sumtool: import" "imported" -- $FL sim import --device "$DEV" \
                --format raw "$T/$n.sum" "$T/$n-sum.img"
            expect 0 "$n+sumtool: probed as jffs2-summary" "jffs2-summary" -- $FL df "$T/$n-sum.img"
            for f in $FILES; do
                expect 0 "$n+sumtool: get /$f" "" -- $FL get --fs jffs2-summary "$T/$n-sum.img:/$f" "$T/out"
                same "$n+sumtool: /$f" "$R/$f" "$T/out"
            done
        fi
    done
done
# the check above can fail: one byte of a node's data changed
cp "$T/jffs2-scan-none.bin" "$T/damaged.bin"
off=$(awk '/Inode  *node at/ && /csize +[1-9]/ { split($4, a, ","); print a[1]; exit }' "$T/jffs2-scan-none.dump")
printf '\001' | dd of="$T/damaged.bin" bs=1 seek=$((off + 70)) conv=notrunc 2>/dev/null
expect 0 "jffs2dump notices a damaged node" "Wrong data_crc" -- jffs2dump -c -l "$T/damaged.bin"
used() { awk '/Inode  *node/ { nf = split($0, f, /[ ,]+/); for (i = 1; i <= nf; i++) if (f[i] == "csize") s += f[i + 1] } END { print s + 0 }' "$1"; }
for c in zlib rtime lzo; do
    a=$(used "$T/jffs2-scan-$c.dump"); b=$(used "$T/jffs2-scan-none.dump")
    [ "$a" -lt "$b" ] && ok || bad "compress=$c stores $a data bytes, none $b"
done
expect 2 "an unknown compressor" "jffs2-scan: bad option .compress=rubin." -- $FL mkfs --fs jffs2-scan -o compress=rubin "$T/jffs2-scan-none.img"

echo "test_jffs2_interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
