#!/bin/sh
# scripts/plot-rber-anchors.sh PNG [DATA]: the bit-error model of the device
# presets against the published points of configs/devices/rber-anchors.tsv
# (docs/validation.md, "The bit-error model against published chips").  A
# panel per cell type: each preset's RBER (`flashlab sim rber`, the
# simulator's own nand_rber) against P/E cycles, fresh and after the
# retention its part is rated for, and the points (published, or a bound
# implied by an ECC rating) with the tolerance the tests hold the presets
# to.  DATA (optional) keeps the
# numbers drawn.  Needs gnuplot; FL names the flashlab program (default
# build/flashlab).
set -eu
png=$1; data=${2:-}
# (absolute: the drawing runs in a temporary directory)
case $png in /*) ;; *) png=$PWD/$png ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
FL=${FL:-$root/build/flashlab}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
dev=$root/configs/devices
anchors=$dev/rber-anchors.tsv

# the model: MLC rated for 1 year of retention, SLC for 10 (docs/references.md
# section 1); the nandsim variant has the OLPC part's model and is left out
"$FL" sim rber --hours 0,8760 "$dev/mlc-2g.yaml" "$dev/mqsim-8g.yaml" > "$tmp/mlc.dat"
"$FL" sim rber --hours 0,87600 "$dev/olpc-xo1-slc-1g.yaml" "$dev/test-64m.yaml" > "$tmp/slc.dat"
# the points: rber rows as they are, bound rows with their band below the
# bound, growth rows as the fresh point (RBER at the row's pe and hours
# divided by the growth) at 1 P/E
awk -v out="$tmp" '
    /^#/ || NF < 7 { next }
    $2 == "rber" || $2 == "bound" { r[$1 " " $3 " " $4] = $5
        print $3, $5, $5 / $6, ($2 == "bound" ? $5 : $5 * $6) > (out "/" $1 "-" $2 ".pts") }
    $2 == "growth" { g[++n] = $0 }
    END { for (i = 1; i <= n; i++) { split(g[i], f, " ")
            v = r[f[1] " " f[3] " " f[4]] / f[5]
            print 1, v, v / f[6], v * f[6] > (out "/" f[1] "-growth.pts") } }
' "$anchors"
touch "$tmp/mlc-rber.pts" "$tmp/mlc-growth.pts" "$tmp/slc-bound.pts"

# one model series: device NAME at HOURS, from FILE
series() { awk -v d="$2" -v h="$3" '!/^#/ && $1 == d && $3 == h { print $2, $5 }' "$1"; }
for d in mlc-2g mqsim-8g; do
    series "$tmp/mlc.dat" $d 0 > "$tmp/$d-0.dat"; series "$tmp/mlc.dat" $d 8760 > "$tmp/$d-1y.dat"
done
for d in olpc-xo1-slc-1g test-64m; do
    series "$tmp/slc.dat" $d 0 > "$tmp/$d-0.dat"; series "$tmp/slc.dat" $d 87600 > "$tmp/$d-10y.dat"
done
if [ -n "$data" ]; then
    { cat "$tmp/mlc.dat"; grep -v '^# raw\|^# device' "$tmp/slc.dat"
      echo "# published points: cell kind pe rber low high"
      for f in "$tmp"/*.pts; do
          b=$(basename "$f" .pts); sed "s/^/${b%%-*}	${b#*-}	/" "$f"; done; } > "$data"
fi

cd "$tmp"
gnuplot <<'GP'
set terminal pngcairo size 1300,800 font ",22" noenhanced linewidth 2
set output 'fig.png'
set multiplot layout 1,2 title "Bit-error model of the presets against published chips" font ",22"
set logscale xy
set xtics ("1" 1, "10" 10, "100" 100, "1k" 1e3, "10k" 1e4, "100k" 1e5)
set format y "%.0e"
set xrange [1:3e5]
set lmargin 11
set rmargin 2
set bmargin 4
set yrange [1e-11:1e-2]
set grid
set tics font ",16"
set xlabel "P/E cycles" font ",18"
set key bottom right Left reverse font ",14" samplen 2 spacing 1 nobox
# Okabe-Ito: orange, sky blue, bluish green, blue
set title "MLC (rated 3,000 P/E, 1 year)" font ",18"
set ylabel "raw bit error rate per bit" font ",18"
plot 'mlc-2g-0.dat' using 1:2 with lines lc rgb '#E69F00' dt 1 title 'mlc-2g, fresh', \
     'mlc-2g-1y.dat' using 1:2 with lines lc rgb '#E69F00' dt 2 title 'mlc-2g, 1 year', \
     'mqsim-8g-0.dat' using 1:2 with points pt 2 ps 1.2 lc rgb '#56B4E9' title 'mqsim-8g, fresh', \
     'mqsim-8g-1y.dat' using 1:2 with points pt 4 ps 1.2 lc rgb '#56B4E9' title 'mqsim-8g, 1 year', \
     'mlc-rber.pts' using 1:2:3:4 with yerrorbars pt 7 ps 2 lc rgb 'black' title 'Hetzler, 1 year (1.5x)', \
     'mlc-growth.pts' using 1:2:3:4 with yerrorbars pt 5 ps 2 lc rgb 'black' title 'Hetzler / 20,000, fresh (2x)'
set title "SLC (rated 100,000 P/E, 10 years)" font ",18"
unset ylabel
set yrange [1e-14:1e-7]
set key top left
plot 'olpc-xo1-slc-1g-0.dat' using 1:2 with lines lc rgb '#009E73' dt 1 title 'olpc-xo1-slc-1g, fresh', \
     'olpc-xo1-slc-1g-10y.dat' using 1:2 with lines lc rgb '#009E73' dt 2 title 'olpc-xo1-slc-1g, 10 years', \
     'test-64m-0.dat' using 1:2 with points pt 2 ps 1.2 lc rgb '#0072B2' title 'test-64m, fresh', \
     'test-64m-10y.dat' using 1:2 with points pt 4 ps 1.2 lc rgb '#0072B2' title 'test-64m, 10 years', \
     'slc-bound.pts' using 1:2:3:4 with yerrorbars pt 6 ps 2 lc rgb 'black' title '1-bit ECC bound, derived (2x)'
unset multiplot
GP
cp fig.png "$png"
