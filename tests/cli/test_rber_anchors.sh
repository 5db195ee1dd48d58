#!/bin/sh
# flashlab sim rber (the model's rate, nand_rber) and the figure of
# docs/validation.md, "The bit-error model against published chips":
# scripts/plot-rber-anchors.sh draws it from the presets and
# configs/devices/rber-anchors.tsv.  (test_sim_anchors holds the presets to
# the points; this checks the command and the figure.)
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FLA=$(cd "$(dirname "$FL")" && pwd)/$(basename "$FL")
DEV=$ROOT/configs/devices

# the rate at the anchor: 3.4e-4 after a year at 3,000 P/E, 1.7e-8 fresh
out=$($FL sim rber --pe 1,3000 --hours 0,8760 "$DEV/mlc-2g.yaml")
[ "$(printf '%s\n' "$out" | awk '$1 == "mlc-2g" && $2 == 3000 && $3 == 8760 { print $5 }')" = 0.000340012 ] &&
    ok || bad "mlc-2g at 3000 P/E, 1 year: $out"
[ "$(printf '%s\n' "$out" | awk '$1 == "mlc-2g" && $2 == 1 && $3 == 0 { print $5 }')" = 1.70025e-08 ] &&
    ok || bad "mlc-2g fresh: $out"
printf '%s\n' "$out" | grep -q '^# mlc-2g: FEMU profile' && ok || bad "no source line: $out"
# SLC at its rating, 100K P/E and 10 years: below the 6.97e-10 its 1-bit
# ECC per 512 B allows (docs/references.md section 2.4)
out=$($FL sim rber --pe 100000 --hours 87600 "$DEV/test-64m.yaml")
[ "$(printf '%s\n' "$out" | awk '$1 == "test-64m" { print $5 }')" = 5.01776e-10 ] &&
    ok || bad "test-64m at 100K P/E, 10 years: $out"
# read disturb: more reads, a higher rate
r0=$($FL sim rber --pe 100 --hours 0 "$DEV/mlc-2g.yaml" | awk '!/^#/ { print $5 }')
r1=$($FL sim rber --pe 100 --hours 0 --reads 1000 "$DEV/mlc-2g.yaml" | awk '!/^#/ { print $5 }')
awk -v a="$r0" -v b="$r1" 'BEGIN { exit !(b > a) }' && ok || bad "reads: $r0 -> $r1"
# the default grid: 1 to twice the endurance (3000: up to 6000)
n=$($FL sim rber --hours 0 "$DEV/mlc-2g.yaml" | grep -vc '^#')
[ "$n" = 31 ] && ok || bad "default grid: $n points"
expect 2 "bad --pe" "expected numbers >= 0" -- $FL sim rber --pe 1,,2 "$DEV/mlc-2g.yaml"
expect 2 "negative --hours" "expected numbers >= 0" -- $FL sim rber --hours -1 "$DEV/mlc-2g.yaml"
expect 2 "no device" "expected one or more" -- $FL sim rber
expect 1 "missing device" "no-such.yaml" -- $FL sim rber "$T/no-such.yaml"

# the figure and its numbers
if command -v gnuplot >/dev/null 2>&1; then
    expect 0 "plot-rber-anchors.sh" "" -- env FL="$FLA" sh "$ROOT/scripts/plot-rber-anchors.sh" "$T/r.png" "$T/r.dat"
    [ "$(head -c 4 "$T/r.png" | od -An -c | tr -d ' ')" = "211PNG" ] && ok || bad "not a PNG"
    grep -q "^mlc	rber	3000 3.4e-4 " "$T/r.dat" && grep -q "^mlc	growth	1 1.7e-08 " "$T/r.dat" &&
        grep -q "^slc	bound	100000 6.97e-10 3.485e-10 6.97e-10$" "$T/r.dat" && ok || bad "points: $(tail -4 "$T/r.dat")"
    grep -q "^olpc-xo1-slc-1g	100000	87600	0	" "$T/r.dat" && ok || bad "no SLC curve at 10 years"
else
    echo "gnuplot not found: the figure is not drawn"
fi
echo "test_rber_anchors: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
