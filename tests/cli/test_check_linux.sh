#!/bin/sh
# `make check-linux` itself boots Linux under qemu and is not run here
# (docs/linux-check.md); this checks what it is made of, cheaply: its
# scripts parse (sh -n, python3 compile) and the flashlab commands it uses
# work on a small part -- put -r of a tree (directories, files, symlinks,
# a FIFO skipped), df --mount-cost, and blocks.py's bad-block placement.
. "$(dirname "$0")/lib.sh"
for s in scripts/check-linux/*.sh; do
    if sh -n "$s"; then ok; else bad "sh -n $s"; fi
done
if python3 -m py_compile scripts/check-linux/blocks.py 2>"$T/py"; then ok; else bad "blocks.py: $(cat "$T/py")"; fi
rm -rf scripts/check-linux/__pycache__

R="$T/tree"
mkdir -p "$R/a/b" "$R/empty"
printf 'one\n' > "$R/a/one.txt"
head -c 70000 /dev/urandom > "$R/a/b/rand.bin"
ln -s a/one.txt "$R/link"
mkfifo "$R/fifo"
I="$T/i.img"
expect 0 "sim create" "created" -- $FL sim create --device configs/devices/test-64m.yaml "$I"
expect 0 "mkfs jffs2-scan" "" -- $FL mkfs --fs jffs2-scan "$I"
expect 0 "put -r" "/t: 3 files, 70004 bytes, 1 skipped" -- $FL put -r --fs jffs2-scan -o compress=zlib "$R" "$I:/t"
expect 0 "put -r: a file" "" -- $FL get "$I:/t/a/b/rand.bin" "$T/out"
if cmp -s "$R/a/b/rand.bin" "$T/out"; then ok; else bad "put -r: rand.bin differs"; fi
expect 0 "put -r: a symlink" "target: a/one.txt" -- $FL stat "$I:/t/link"
expect 0 "put -r: an empty directory" "type: *directory" -- $FL stat "$I:/t/empty"
expect 1 "put without -r refuses a directory" "is a directory" -- $FL put "$R" "$I:/x"
expect 1 "put -r refuses a file" "needs a directory" -- $FL put -r "$R/a/one.txt" "$I:/x"
expect 0 "df --mount-cost" "^mount: *flash [0-9.]* s, clock" -- $FL df --mount-cost "$I"
expect 0 "df --mount-cost: work" "page reads, .* nodes indexed" -- $FL df --mount-cost --fs jffs2-summary "$I"

# nandsim's prices, as images.sh gets them: the same pages exported and
# imported into the part with whole_page_reads; the mount reads the same
# pages, and its flash time is dearer (JFFS2 reads spares alone): a whole
# page per read command, to the printed microsecond
sed '/^  addr_cycles:/a\  whole_page_reads: true' configs/devices/test-64m.yaml > "$T/ns.yaml"
expect 0 "export nanddump" "" -- $FL sim export --format nanddump "$I" "$T/i.nanddump"
expect 0 "import into nandsim's prices" "" -- $FL sim import --device "$T/ns.yaml" --format nanddump "$T/i.nanddump" "$T/ns.img"
expect 0 "sim info: nandsim's prices" "every read moves a whole page" -- $FL sim info "$T/ns.img"
for k in jffs2-scan jffs2-summary; do
    $FL df --mount-cost --fs $k "$I" > "$T/chip.txt"
    $FL df --mount-cost --fs $k "$T/ns.img" > "$T/ns.txt"
    rc=$(awk '/^mount work:/ {print $3}' "$T/chip.txt"); rn=$(awk '/^mount work:/ {print $3}' "$T/ns.txt")
    fc=$(awk '/^mount:/ {print $3}' "$T/chip.txt"); fn=$(awk '/^mount:/ {print $3}' "$T/ns.txt")
    if [ -n "$rc" ] && [ "$rc" = "$rn" ]; then ok; else bad "$k: reads differ at nandsim's prices ($rc, $rn)"; fi
    # a page read: 7 cycles + 25 us + 2112 bytes at 25 ns = 77.975 us
    if awk -v c="$fc" -v n="$fn" -v r="$rn" 'BEGIN { d = n - r * 77.975e-6; exit !(n > c && d < 1e-6 && d > -1e-6) }'; then ok
    else bad "$k: flash at nandsim's prices $fn s against the chip's $fc s, $rn reads"; fi
done

# blocks.py: a 3-block stream around bad block 1 lands on blocks 0, 2, 3
head -c $((3 * 131072)) /dev/urandom > "$T/stream"
python3 scripts/check-linux/blocks.py place "$T/stream" "$T/placed" 1
if [ "$(wc -c < "$T/placed")" -eq $((4 * 131072)) ] &&
   cmp -s -n 131072 "$T/stream" "$T/placed" &&
   cmp -s -i $((131072)):$((2 * 131072)) "$T/stream" "$T/placed"; then ok
else bad "blocks.py place: the stream is not around bad block 1"; fi
expect 0 "blocks.py segments" "^0:131072 262144:262144$" -- python3 scripts/check-linux/blocks.py segments "$T/placed" 1

echo "test_check_linux: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
