#!/bin/sh
# flashlab df on a custom 48 MiB TLC part (written here: 128 erase blocks
# of 96 x 4 KiB pages, paired pages, some factory-bad blocks): the
# breakdown names the bad blocks, superblocks, anchor ring, held-back
# reserve, cleaner headroom, live data and metadata and free space, and
# its parts add up to the device's capacity -- exactly in erase blocks and
# bytes, and in the MiB shown to their rounding.  mkfs's --anchor-blocks
# and --reserve show up in their rows, and a file's data and metadata
# move bytes from free to live.
. "$(dirname "$0")/lib.sh"
D="$T/tlc-48m.yaml"
cat > "$D" <<YAML
name: tlc-48m
cell: tlc
geometry:
  channels: 1
  dies_per_channel: 1
  planes_per_die: 1
  blocks_per_plane: 128
  pages_per_block: 96
  page_size: 4096
  oob_size: 224
nop: 1
pair_distance: 2
endurance: 1000
factory_bad_fraction: 0.03
ecc: {codeword_bytes: 1024, correct_bits: 40}
seed: 3
YAML
EB=$((96 * 4096))            # erase block
DEV=$((128 * EB))            # 48 MiB
I="$T/tlc.img"
expect 0 "create the TLC part" "48 MiB" -- $FL sim create --device "$D" "$I"
expect 0 "it is TLC" "(tlc)" -- $FL sim info "$I"
factory=$($FL sim info "$I" | sed -n 's/^blocks: .* \([0-9]*\) factory bad.*/\1/p')
[ "${factory:-0}" -gt 0 ] && ok || bad "the part should have factory-bad blocks: $($FL sim info "$I")"

# row FILE NAME: the MiB of the breakdown row NAME; blocks FILE NAME: its
# count of blocks or segments; field FILE NAME: a top line's bytes
row()    { sed -n "s/^  $2  *\([0-9.]*\) MiB.*/\1/p" "$1"; }
blocks() { sed -n "s/^  $2  *[0-9.]* MiB  \([0-9]*\) .*/\1/p" "$1"; }
field()  { sed -n "s/^$2: *\([0-9]*\) bytes.*/\1/p" "$1"; }

# check DESCRIPTION DFOUT ANCHOR RESERVE: the breakdown of one df output
check() {
    what=$1; f=$2
    for r in "device" "- bad blocks" "- superblocks" "- anchor ring" "- held back" \
             "- segment tails" "- cleaner headroom" "= total" "  - live" "  - not committed" \
             "  = free"; do
        [ -n "$(row "$f" "$r")" ] && ok || bad "$what: no row '$r': $(cat "$f")"
    done
    nb=$(blocks "$f" device); bb=$(blocks "$f" "- bad blocks"); sb=$(blocks "$f" "- superblocks")
    an=$(blocks "$f" "- anchor ring"); held=$(blocks "$f" "- held back")
    total=$(field "$f" total); free=$(field "$f" free); live=$(field "$f" live)
    [ "$nb" -eq 128 ] && ok || bad "$what: $nb erase blocks, not 128"
    [ "$bb" -eq "$factory" ] && ok || bad "$what: $bb bad blocks, sim info says $factory"
    [ "$sb" -eq 2 ] && ok || bad "$what: $sb superblocks"
    [ "$an" -eq "$3" ] && ok || bad "$what: anchor ring of $an blocks, not $3"
    [ "$held" -ge "$4" ] && ok || bad "$what: $held segments held back, fewer than the reserve $4"
    # the segments the cleaner manages hold total and its headroom: total is
    # at most 85% of them, and more than 85% of one fewer
    managed=$((nb - bb - sb - an - held))
    [ $((total * 100)) -le $((managed * EB * 85)) ] &&
        [ $((total * 100)) -gt $(((managed - 1) * EB * 85)) ] && ok ||
        bad "$what: total $total bytes is not 85% of the $managed segments left"
    [ $((nb * EB)) -eq "$DEV" ] && ok || bad "$what: $nb erase blocks are not the device's $DEV bytes"
    # the segment tails and the headroom rows are the rest of those segments
    hr=$(row "$f" "- cleaner headroom"); tl=$(row "$f" "- segment tails")
    awk -v h="$hr" -v t="$tl" -v b=$((managed * EB - total)) 'BEGIN { d = h + t - b / 1048576; exit !(d <= 0.01 && d >= -0.01) }' &&
        ok || bad "$what: headroom $hr MiB and tails $tl MiB are not $((managed * EB - total)) bytes"
    # the MiB rows: device = the parts above total + total; total = live +
    # not committed + free (each shown to 0.01 MiB: 0.005 MiB a row)
    awk '
        { v = ""; for (i = 1; i <= NF; i++) if ($i == "MiB") { v = $(i - 1); break } }
        /^  device /     { d = v }
        /^  - /          { d -= v; n1++ }
        /^  = total /    { t = v }
        /^    - /        { u += v; n2++ }
        /^    = free /   { f = v }
        END { a = d - t; if (a < 0) a = -a
              b = t - u - f; if (b < 0) b = -b
              exit !(t > 0 && n1 == 6 && n2 == 2 && a <= 0.005 * (n1 + 2) && b <= 0.005 * (n2 + 2)) }' "$f" &&
        ok || bad "$what: the MiB rows do not add up: $(cat "$f")"
    dmib=$(row "$f" device)
    [ "$dmib" = "48.00" ] && ok || bad "$what: device row $dmib MiB"
    # live + not committed + free = total, in bytes (df's top lines)
    [ "$free" -le "$total" ] && [ "$live" -le $((total - free)) ] && ok ||
        bad "$what: live $live and free $free do not fit in total $total"
}

expect 0 "mkfs with the defaults" "" -- $FL mkfs "$I"
$FL df "$I" > "$T/df0" 2>&1 && ok || bad "df: $(cat "$T/df0")"
check "defaults" "$T/df0" 4 8
held0=$(blocks "$T/df0" "- held back")

expect 0 "mkfs --anchor-blocks 6 --reserve 12" "" -- $FL mkfs --force --anchor-blocks 6 --reserve 12 "$I"
$FL df "$I" > "$T/df1" 2>&1 && ok || bad "df: $(cat "$T/df1")"
check "6 anchor blocks, reserve 12" "$T/df1" 6 12
held1=$(blocks "$T/df1" "- held back")
[ "$held1" -eq $((held0 + 4)) ] && ok || bad "reserve 8 -> 12 holds back $held0 -> $held1 segments"

# a file: its data and the metadata the tree needs for it are live, taken
# from free; the capacity does not change
head -c 3000000 /dev/urandom > "$T/f.bin"
expect 0 "put a file" "" -- $FL put "$T/f.bin" "$I:/f.bin"
$FL df "$I" > "$T/df2" 2>&1 && ok || bad "df: $(cat "$T/df2")"
check "after a put" "$T/df2" 6 12
t1=$(field "$T/df1" total); t2=$(field "$T/df2" total)
live2=$(field "$T/df2" live); free1=$(field "$T/df1" free); free2=$(field "$T/df2" free)
[ "$t1" -eq "$t2" ] && ok || bad "total changed with a file: $t1 -> $t2"
[ "$live2" -gt 3000000 ] && ok || bad "live $live2 is not the file's 3000000 bytes and its metadata"
[ $((free1 - free2)) -ge "$((live2 - $(field "$T/df1" live)))" ] && ok ||
    bad "free shrank by $((free1 - free2)), less than live grew"

echo "test_df_tlc: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
