#!/bin/sh
# scripts/plot-retention.sh DB PNG: files lost against simulated days of a
# retention experiment (configs/retention-scrub.yaml), one line per scrub
# setting, from the `retention` table (docs/results-schema.md); needs
# sqlite3 and gnuplot.  The line of a setting is the mean over its seeds
# of `ever_lost` (files that failed a read at that check or before).
set -eu
db=$1; png=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
settings=$(sqlite3 "$db" "SELECT DISTINCT coalesce(json_extract(params, '\$.fs.scrub_threshold'), 0)
                          FROM runs WHERE status = 'complete' ORDER BY 1")
plot=""
for s in $settings; do
    sqlite3 -separator ' ' "$db" "SELECT t.sim_time_ns / 86400e9, avg(t.ever_lost)
        FROM retention t JOIN runs r ON r.id = t.run_id
        WHERE r.status = 'complete'
          AND coalesce(json_extract(r.params, '\$.fs.scrub_threshold'), 0) = $s
        GROUP BY t.seq ORDER BY t.seq" > "$tmp/$s.dat"
    if [ "$s" = 0 ]; then title="no scrubbing"; else title="scrub_threshold $s"; fi
    plot="$plot${plot:+, }'$tmp/$s.dat' using 1:2 with lines lw 2 title '$title'"
done
files=$(sqlite3 "$db" "SELECT max(files) FROM retention")
gnuplot <<GP
set terminal pngcairo size 800,480 font ',11' noenhanced
set output '$png'
set xlabel 'simulated days idle (every file read once a day)'
set ylabel 'files lost (of $files)'
set key top left
set grid
set xrange [0:*]
set yrange [0:*]
plot $plot
GP
