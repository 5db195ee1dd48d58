# results.sh (sourced by check-linux.sh): the guest's results checked, the
# dump imported back into flashlab, and the mount times compared.
O="$B/out"
rm -rf "$O"
mkdir -p "$O"
tar -xf "$B/out.tar" -C "$O" 2>/dev/null || bad "no results from the guest (console: $B/console.log)"
if [ -s "$O/errors" ]; then
    while read -r line; do bad "guest: $line"; done < "$O/errors"
fi

# nandsim took the ID bytes for the part's geometry
if grep -q "1024 MiB, SLC, erase size: 128 KiB, page size: 2048, OOB size: 64" "$O/dmesg.txt" 2>/dev/null; then
    ok "nandsim is the OLPC part: 1024 MiB, 128 KiB blocks, 2048 + 64 B pages"
else
    bad "nandsim's geometry is not the OLPC part's ($O/dmesg.txt)"
fi

# the tree Linux mounted against the source: files (md5), dirs, symlinks
if [ -f "$O/plain-d0.md5" ]; then
    : > "$B/src.md5"; : > "$B/src.links"; echo "." > "$B/src.dirs"
    for t in $TREES; do
        (cd "$t/.." && find "${t##*/}" -type f -exec md5sum {} + ) >> "$B/src.md5"
        (cd "$t/.." && find "${t##*/}" -type d) | sed 's|^|./|' >> "$B/src.dirs"
        (cd "$t/.." && find "${t##*/}" -type l | while read -r l; do
            echo "./$l -> $(readlink "$l")"; done) >> "$B/src.links"
    done
    sed 's|  \./|  |' "$O/plain-d0.md5" | LC_ALL=C sort -k 2 > "$B/linux.md5"
    LC_ALL=C sort -k 2 "$B/src.md5" > "$B/src.sorted.md5"
    n=$(wc -l < "$B/src.sorted.md5")
    if cmp -s "$B/src.sorted.md5" "$B/linux.md5"; then
        ok "Linux's JFFS2 reads flashlab's image: $n files, every md5 equal"
    else
        bad "Linux's tree differs from the source: $(diff "$B/src.sorted.md5" "$B/linux.md5" | grep -c '^[<>]') lines (diff $B/src.sorted.md5 $B/linux.md5)"
    fi
    for k in dirs links; do
        if LC_ALL=C sort "$O/plain-d0.$k" | cmp -s - "$(LC_ALL=C sort "$B/src.$k" > "$B/src.sorted.$k"; echo "$B/src.sorted.$k")"; then
            ok "Linux's tree: $(wc -l < "$B/src.sorted.$k") $k as in the source"
        else
            bad "Linux's $k differ from the source (diff $B/src.sorted.$k and sorted $O/plain-d0.$k)"
        fi
    done
else
    bad "no checksums of Linux's tree came back"
fi

# nanddump of the chip after Linux's writes, imported back into flashlab
if [ "${SKIP_GUEST:-0}" = 1 ] && [ ! -f "$B/dump.nanddump" ]; then
    echo "check-linux: SKIP_GUEST=1 and the dump was not kept (KEEP=1): its import not checked"
elif [ -f "$O/plain-d0.mount" ] && grep -q "nanddump to" "$B/console.log"; then
    rm -f "$B/back.img"
    if $FL sim import --device "$DEV" --format nanddump "$B/dump.nanddump" "$B/back.img" >/dev/null; then
        ok "flashlab imports Linux's nanddump"
        for k in jffs2-scan jffs2-summary; do
            if $FL get --fs "$k" "$B/back.img:/written-by-linux.bin" "$B/back.bin" &&
               cmp -s "$B/back.bin" "$B/linux-file"; then
                ok "$k reads the file Linux wrote byte-identical (300000 bytes)"
            else
                bad "$k: the file Linux wrote does not read back equal"
            fi
            if $FL cat --fs "$k" "$B/back.img:/from-linux/hello.txt" | grep -q "written by Linux"; then
                ok "$k reads Linux's new directory and file"
            else
                bad "$k: /from-linux/hello.txt not read back"
            fi
        done
        f=$(head -n 1 "$B/src.sorted.md5" | cut -c 35-)
        if $FL get --fs jffs2-scan "$B/back.img:/$f" "$B/back.bin" &&
           [ "$(md5sum < "$B/back.bin" | cut -c 1-32)" = "$(head -n 1 "$B/src.sorted.md5" | cut -c 1-32)" ]; then
            ok "the tree survives Linux's mount and writes (/$f)"
        else
            bad "/$f changed after Linux's mount"
        fi
    else
        bad "flashlab cannot import Linux's nanddump"
    fi
else
    bad "no nanddump from the guest"
fi

# Mount times.  Linux's flash time on nandsim is its read commands (counted
# from nandsim's log in a read-only mount, the "count" jobs) times what
# nandsim charges for one: access_delay + input_cycle x page size
# (NOMINAL_US).  Timing it (delays on - off) is also shown, but nandsim
# busy-waits with udelay, which under TCG overshoots by a factor that
# changes with the host's load (the "per read" column: 8,192 dd page reads
# timed both ways in the same job).  flashlab's flash time is compared
# twice: on the chip's prices ($DEV) and on nandsim's ($DEV_NANDSIM, the
# same pages, every read command a whole page), and its read commands (the
# bad-block marker reads left out: Linux reads the markers when nandsim
# attaches, not at mount) against Linux's.
nominal_us=$(awk '/t_r_ns:/ {r = $2 / 1000} /t_cycle_ns:/ {c = $2}
    END {print r + int(c * 2048 / 1000)}' "$DEV")
nblocks=$(awk '/dies_per_channel:/ {d = $2} /blocks_per_plane:/ {b = $2} END {print d * b}' "$DEV")
num() { awk '{print $2}' "$O/$1" 2>/dev/null || true; }
ops() { awk -v k="$2" '$1 == k {print $2}' "$O/$1" 2>/dev/null || true; }
fl() { awk -v k="$2" '/^mount/ { for (i = 1; i < NF; i++) if ($i == k) { v = $(i + 1); sub(",", "", v); print v } }' "$B/$1" || true; }
reads() { awk '/^mount work:/ {print $3}' "$B/$1" || true; }
rm -f "$B/ratios"
{
    echo "| image | Linux read commands | Linux flash on nandsim (x $nominal_us us) | timed: delays on - off | per read, timed | Linux CPU (delays off, TCG) | flashlab kind | flashlab reads (no markers) | reads / Linux | flashlab flash, chip | chip / Linux | flashlab flash, nandsim's prices | **nandsim's prices / Linux** | flashlab CPU model |"
    echo "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
    for row in plain:jffs2-scan:flashlab-plain.txt plain:jffs2-summary:flashlab-plain-sumkind.txt \
               sum:jffs2-summary:flashlab-sum.txt; do
        n=${row%%:*}; rest=${row#*:}; kind=${rest%%:*}; file=${rest#*:}
        lr=$(ops $n-count.ops reads); on=$(num $n-d1.mount); off=$(num $n-d0.mount)
        c1=$(num $n-d1.calib); c0=$(num $n-d0.calib)
        ff=$(fl "$file" flash); fc=$(fl "$file" "(geode-lx-433)"); fr=$(reads "$file")
        fn=$(fl "${file%.txt}-ns.txt" flash)
        if [ -z "$lr" ] || [ -z "$ff" ] || [ -z "$fn" ]; then
            echo "| $n | ? | | | | | $kind | | | ${ff:-?} s | | ${fn:-?} s | | |"
            bad "$n ($kind): no count of Linux's reads (or no flashlab measurement)"
            continue
        fi
        echo "$lr ${on:-0} ${off:-0} ${c1:-0} ${c0:-0} $nominal_us $ff $fc $fr $nblocks $n $kind $fn" | awk '{
            lflash = $1 * $6 / 1e6; fr = $9 - $10
            timed = ($2 && $3) ? sprintf("%.2f s", ($2 - $3) / 1e9) : "?"
            per = ($4 && $5) ? sprintf("%.0f us", ($4 - $5) / 8192 / 1e3) : "?"
            cpu = $3 ? sprintf("%.2f s", $3 / 1e9) : "?"
            printf "| %s | %d | %.2f s | %s | %s | %s | %s | %d | %.2f | %.2f s | %.2f | %.2f s | **%.2f** | %.2f s |\n",
                $11, $1, lflash, timed, per, cpu, $12, fr, fr / $1, $7, $7 / lflash, $13, $13 / lflash, $8
            printf "%s %s %d %d %.3f %.3f %.3f\n", $11, $12, $1, fr, lflash, $7, $13 > "/dev/stderr"
        }' 2>> "$B/ratios"
    done
} > "$B/table.md"
cat "$B/table.md"
# The checks, within 30%: flashlab's flash time, at nandsim's prices, against
# Linux's on nandsim, for both kinds and both images; and flashlab reads what
# Linux reads -- as many read commands -- for the kind that does what
# Debian's kernel does (CONFIG_JFFS2_SUMMARY=y: every block's last page is
# read for a summary), jffs2-summary.  The flash time at the chip's prices
# is reported.
[ -f "$B/ratios" ] || : > "$B/ratios"
within30() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= 0.7 * b && a <= 1.3 * b) }'; }
while read -r n kind lr fr lflash ff fn; do
    if within30 "$fn" "$lflash"; then
        ok "$n image, $kind: flashlab's flash time at nandsim's prices, $fn s, within 30% of Linux's $lflash s"
    else
        bad "$n image, $kind: flashlab's flash time at nandsim's prices, $fn s, not within 30% of Linux's $lflash s"
    fi
    echo "check-linux: $n image, $kind: at the chip's prices flashlab's flash time is $ff s = $(awk -v a="$ff" -v b="$lflash" 'BEGIN {printf "%.2f", a / b}') x Linux's on nandsim (a spare costs tR + 64 bytes on the chip, a whole page in nandsim)"
    [ "$kind" = jffs2-summary ] || continue
    if within30 "$fr" "$lr"; then
        ok "$n image, $kind: flashlab's $fr read commands within 30% of Linux's $lr"
    else
        bad "$n image, $kind: flashlab's $fr read commands not within 30% of Linux's $lr"
    fi
done < "$B/ratios"
if [ "${KEEP:-0}" != 1 ]; then
    rm -f "$B/dump.nanddump" "$B/back.img"
fi
