# images.sh (sourced by check-linux.sh): the two 1 GiB images, made and
# measured by flashlab.  $B/plain.img: the trees copied by `flashlab put -r`
# (jffs2-scan, zlib).  $B/sum.img: sumtool's summaries over plain's nodes,
# placed around the part's bad blocks and imported.  Both are remade only
# when TREES changed (or rm $B/images.stamp).
stamp="trees=$TREES"
if [ ! -f "$B/images.stamp" ] || [ "$(cat "$B/images.stamp")" != "$stamp" ] ||
   [ ! -f "$B/plain.raw" ] || [ ! -f "$B/sum.raw" ]; then
    rm -f "$B/images.stamp" "$B/plain.img" "$B/sum.img"
    $FL sim create --device "$DEV" "$B/plain.img" >/dev/null
    $FL mkfs --fs jffs2-scan -o compress=zlib "$B/plain.img" >/dev/null
    for t in $TREES; do
        [ -d "$t" ] || die "tree $t: no such directory"
        echo "check-linux: copying $t into the image (flashlab put -r, zlib)"
        $FL put -r --fs jffs2-scan -o compress=zlib "$t" "$B/plain.img:/${t##*/}"
    done
    $FL sim export --format raw "$B/plain.img" "$B/plain.raw" >/dev/null
    sumtool -e 0x20000 -n -l -p -i "$B/plain.raw" -o "$B/sum.stream" ||
        die "sumtool failed on $B/plain.raw"
    BAD_LIST=$($FL sim info --blocks "$B/plain.img" | awk '$1 ~ /^[0-9]+$/ && /factory-bad|marked/ {print $1}')
    python3 "$HERE/blocks.py" place "$B/sum.stream" "$B/sum.raw" $BAD_LIST
    rm -f "$B/sum.stream"
    $FL sim import --device "$DEV" --format raw "$B/sum.raw" "$B/sum.img" >/dev/null
    echo "$stamp" > "$B/images.stamp"
fi
BAD_LIST=$($FL sim info --blocks "$B/plain.img" | awk '$1 ~ /^[0-9]+$/ && /factory-bad|marked/ {print $1}')
# The same pages on the part as nandsim charges its reads ($DEV_NANDSIM:
# a whole page per read command): a nanddump export imported into it.
for n in plain sum; do
    if [ ! -f "$B/$n-ns.img" ] || [ "$B/$n-ns.img" -ot "$B/$n.img" ]; then
        $FL sim export --format nanddump "$B/$n.img" "$B/$n.nanddump" >/dev/null
        $FL sim import --force --device "$DEV_NANDSIM" --format nanddump \
            "$B/$n.nanddump" "$B/$n-ns.img" >/dev/null
        rm -f "$B/$n.nanddump"
    fi
done
# flashlab's mounts of the two images, priced as the chip and as nandsim
for t in "" -ns; do
    $FL df --mount-cost --fs jffs2-scan "$B/plain$t.img" > "$B/flashlab-plain$t.txt"
    $FL df --mount-cost --fs jffs2-summary "$B/sum$t.img" > "$B/flashlab-sum$t.txt"
    $FL df --mount-cost --fs jffs2-summary "$B/plain$t.img" > "$B/flashlab-plain-sumkind$t.txt"
done
cat "$B/flashlab-plain.txt"
grep '^mount' "$B/flashlab-sum.txt" "$B/flashlab-plain-ns.txt" "$B/flashlab-sum-ns.txt"
