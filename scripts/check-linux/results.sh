# results.sh (sourced by check-linux.sh): the guest's results checked, the
# dump imported back into flashlab, and the mount times compared.
O="$B/out"
rm -rf "$O"
mkdir -p "$O"
tar -xf "$B/out.tar" -C "$O" 2>/dev/null || bad "no results from the guest (console: $B/console.log)"
if [ -s "$O/errors" ]; then
    while read -r line; do bad "guest: $line"; done < "$O/errors"
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

# Mount times.  Linux's flash time = its mount with delays on - delays
# off.  nandsim busy-waits with udelay, which under TCG overshoots by a
# factor that varies with the host's load: each job first times
# CALIB_PAGES page reads (dd) both ways, and Linux's flash time is also
# given at nandsim's nominal cost per read command (access_delay +
# input_cycle x page size = NOMINAL_US; docs/linux-check.md).  flashlab's
# reads are priced the same way ("at nandsim's price": every read but the
# bad-block markers, which Linux reads at attach, not at mount).
nominal_us=$(awk '/t_r_ns:/ {r = $2 / 1000} /t_cycle_ns:/ {c = $2}
    END {print r + int(c * 2048 / 1000)}' "$DEV")
rm -f "$B/ratios"
nblocks=$(awk '/dies_per_channel:/ {d = $2} /blocks_per_plane:/ {b = $2} END {print d * b}' "$DEV")
num() { awk '{print $2}' "$O/$1" 2>/dev/null || true; }
fl() { awk -v k="$2" '/^mount/ { for (i = 1; i < NF; i++) if ($i == k) { v = $(i + 1); sub(",", "", v); print v } }' "$B/$1" || true; }
reads() { awk '/^mount work:/ {print $3}' "$B/$1" || true; }
{
    echo "| image | Linux mount, delays on | delays off (CPU, TCG) | Linux flash time | per read (nominal $nominal_us us) | Linux flash at nominal | flashlab kind | flashlab flash | flashlab CPU model | flashlab reads | flashlab at nandsim's price | flashlab / Linux (nominal) | at nandsim's price / Linux |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for row in plain:jffs2-scan:flashlab-plain.txt plain:jffs2-summary:flashlab-plain-sumkind.txt \
               sum:jffs2-summary:flashlab-sum.txt; do
        n=${row%%:*}; rest=${row#*:}; kind=${rest%%:*}; file=${rest#*:}
        on=$(num $n-d1.mount); off=$(num $n-d0.mount)
        c1=$(num $n-d1.calib); c0=$(num $n-d0.calib)
        ff=$(fl "$file" flash); fc=$(fl "$file" "(geode-lx-433)"); fr=$(reads "$file")
        if [ -z "$on" ] || [ -z "$off" ] || [ -z "$c1" ] || [ -z "$c0" ] || [ -z "$ff" ]; then
            echo "| $n | ${on:-?} | ${off:-?} | ? | ? | ? | $kind | ${ff:-?} s | ? | ? | ? | ? | ? |"
            bad "$n ($kind): no Linux mount time and calibration for both delay settings"
            continue
        fi
        echo "$on $off $c1 $c0 ${CALIB_PAGES:-8192} $nominal_us $ff $fc $fr $nblocks $n $kind" | awk '{
            lf = ($1 - $2) / 1e9; per = ($3 - $4) / $5 / 1e3; lnom = lf * $6 / per
            price = ($9 - $10) * $6 / 1e6
            printf "| %s | %.2f s | %.2f s | %.2f s | %.0f us | %.2f s | %s | %.2f s | %.2f s | %d | %.2f s | %.2f | %.2f |\n",
                $11, $1 / 1e9, $2 / 1e9, lf, per, lnom, $12, $7, $8, $9, price, $7 / lnom, price / lnom
            printf "%s %s %.3f %.3f %.3f\n", $11, $12, lnom, $7, price > "/dev/stderr"
        }' 2>> "$B/ratios"
    done
} > "$B/table.md"
cat "$B/table.md"
# The check: flashlab reads what Linux reads -- its reads at nandsim's
# price within 30% of Linux's flash time at nandsim's nominal delays, for
# the kinds that follow Debian's kernel (CONFIG_JFFS2_SUMMARY=y: every block's
# last page is read for a summary) -- jffs2-summary on both images.
while read -r n kind lnom ff price; do
    [ "$kind" = jffs2-summary ] || continue
    if awk -v a="$price" -v b="$lnom" 'BEGIN { exit !(a >= 0.7 * b && a <= 1.3 * b) }'; then
        ok "$n image, $kind: flashlab's reads at nandsim's price $price s within 30% of Linux's $lnom s"
    else
        bad "$n image, $kind: flashlab's reads at nandsim's price $price s not within 30% of Linux's $lnom s"
    fi
    echo "check-linux: $n image, $kind: flashlab's own flash time $ff s = $(awk -v a="$ff" -v b="$lnom" 'BEGIN {printf "%.2f", a / b}') x Linux's (spare reads cost tR + 64 bytes here, a whole page in nandsim)"
done < "$B/ratios"
if [ "${KEEP:-0}" != 1 ]; then
    rm -f "$B/dump.nanddump" "$B/back.img"
fi
