#!/bin/sh
# flashlab plot: every kind to PNG and SVG (and PDF when gnuplot has
# pdfcairo), with the right file signatures; --data tables; clear errors
# with exit 1 (missing or foreign DB, no rows) and 2 (bad usage); awkward
# output names; the DB left byte-identical.  The results DB comes from
# tests/analysis/plot_fixture.c, built here against the flashlab library beside $FL.
. "$(dirname "$0")/lib.sh"
skipped=0
KINDS="erase-hist erase-cdf wa-util wa-time mount-size lifetime"
TAB=$(printf '\t')
# sig FILE: its first 8 bytes in hex
sig() { head -c 8 "$1" | od -An -tx1 | tr -d ' \n'; }
# drawn DESCRIPTION FILE FORMAT: FILE is a non-empty image of FORMAT
drawn() {
    if [ ! -s "$2" ]; then bad "$1: $2 missing or empty"; return; fi
    case $3 in
    png) [ "$(sig "$2")" = 89504e470d0a1a0a ] && ok || bad "$1: no PNG signature" ;;
    svg) grep -q '<svg' "$2" && ok || bad "$1: no <svg" ;;
    pdf) [ "$(head -c 5 "$2")" = "%PDF-" ] && ok || bad "$1: no %PDF-" ;;
    esac
}

# ---- the fixture ---------------------------------------------------------------
LIBS=$(pkg-config --libs sqlite3 2>/dev/null || echo -lsqlite3)
if ! ${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -Ianalysis tests/analysis/plot_fixture.c \
        "$(dirname "$FL")/libflashlab.a" $LIBS -lm -o "$T/fixture" 2>"$T/cc.err"; then
    bad "build tests/analysis/plot_fixture.c: $(cat "$T/cc.err")"
    echo "test_plot_cli: $passed passed, $failed failed, $skipped skipped"; exit 1
fi
DB="$T/results.db"
"$T/fixture" "$DB" && "$T/fixture" "$T/empty.db" empty && "$T/fixture" "$T/seeds.db" seeds && ok || bad "fixture databases"
cp "$DB" "$T/before.db"
# flashlab plot's temporary directories go here, so that leftovers show.
mkdir "$T/tmp" && export TMPDIR="$T/tmp"

# ---- help and usage errors (exit 2) ---------------------------------------------
expect 0 "top-level help lists plot" "plot " -- $FL --help
expect 0 "plot --help" "usage: flashlab plot" -- $FL plot --help
for k in $KINDS; do expect 0 "plot --help lists $k" "^  $k " -- $FL plot --help; done
expect 0 "plot --help says what wa-util needs" "utilisation" -- $FL plot --help
expect 2 "unknown kind" "unknown plot kind 'erase-histogram'" -- $FL plot "$DB" --kind erase-histogram -o "$T/a.png"
expect 2 "a kind's typo: did you mean" "unknown plot kind 'wa-utl' (did you mean 'wa-util'?)" -- $FL plot "$DB" --kind wa-utl -o "$T/a.png"
expect 2 "far from every kind: the kinds" "(valid kinds: erase-hist, erase-cdf, wa-util, .*, faults)" -- $FL plot "$DB" --kind zzz -o "$T/a.png"
expect 2 "no kind" "--kind is required" -- $FL plot "$DB" -o "$T/a.png"
expect 2 "bad extension" "cannot tell the format of '$T/a.jpg'" -- $FL plot "$DB" --kind wa-util -o "$T/a.jpg"
expect 2 "no extension" "name it .png, .svg or .pdf" -- $FL plot "$DB" --kind wa-util -o "$T/a"
expect 2 "neither -o nor --data" "give -o" -- $FL plot "$DB" --kind wa-util
expect 2 "no DB" "expected one DB" -- $FL plot --kind wa-util -o "$T/a.png"
expect 2 "two DBs" "expected one DB" -- $FL plot "$DB" "$DB" --kind wa-util -o "$T/a.png"
expect 2 "bad --run" "bad run id 'x'" -- $FL plot "$DB" --kind wa-time --run x -o "$T/a.png"
expect 2 "bad --by" "bad --by key 'fs..x'" -- $FL plot "$DB" --kind wa-util --by fs..x -o "$T/a.png"
expect 2 "bad --x" "bad --x 'bytes'" -- $FL plot "$DB" --kind wa-time --x bytes -o "$T/a.png"
expect 2 "bad --np" "bad --np '1'" -- $FL plot "$DB" --kind wa-util --np 1 -o "$T/a.png"
expect 2 "bad --wa" "bad --wa 'final' (steady, total-steady, cumulative or interval)" -- $FL plot "$DB" --kind wa-util --wa final -o "$T/a.png"
expect 2 "unknown option" "Try 'flashlab plot --help'" -- $FL plot "$DB" --kind wa-util --colour red -o "$T/a.png"

# ---- failures (exit 1) -------------------------------------------------------------
expect 1 "missing DB" "flashlab plot: $T/missing.db: No such file" -- $FL plot "$T/missing.db" --kind wa-util -o "$T/a.png"
[ ! -e "$T/missing.db" ] && ok || bad "plot created the missing DB"
: > "$T/blank.db"
expect 1 "DB without the tables" "not a flashlab results database (no 'experiments' table)" -- $FL plot "$T/blank.db" --kind wa-util -o "$T/a.png"
echo "just text, not SQLite at all, long enough to have a header" > "$T/text.db"
expect 1 "not SQLite" "not a database" -- $FL plot "$T/text.db" --kind wa-util -o "$T/a.png"
expect 1 "no erase rows" "no erase_counts rows in the database: run an experiment with erase snapshots" -- $FL plot "$T/empty.db" --kind erase-hist -o "$T/a.png"
expect 1 "no erase rows (cdf)" "no erase_counts rows" -- $FL plot "$T/empty.db" --kind erase-cdf -o "$T/a.png"
expect 1 "no runs for wa-util" "no complete runs with a measured utilisation" -- $FL plot "$T/empty.db" --kind wa-util -o "$T/a.png"
expect 1 "no samples" "no samples rows" -- $FL plot "$T/empty.db" --kind wa-time -o "$T/a.png"
expect 1 "no mounts" "no mounts rows" -- $FL plot "$T/empty.db" --kind mount-size -o "$T/a.png"
expect 1 "no lifetimes" "no wear-out lifetimes" -- $FL plot "$T/empty.db" --kind lifetime -o "$T/a.png"
expect 1 "no rows for the experiment" "no erase_counts rows for the selected runs" -- $FL plot "$DB" --kind erase-hist --experiment mount -o "$T/a.png"
expect 1 "no such run" "for the selected runs" -- $FL plot "$DB" --kind wa-time --run 999 -o "$T/a.png"
[ ! -e "$T/a.png" ] && ok || bad "a failed plot wrote its output"
expect 1 "unwritable output" "cannot write $T/nodir/a.png" -- $FL plot "$DB" --kind wa-util -o "$T/nodir/a.png"
expect 1 "unwritable --data" "$T/nodir/a.dat" -- $FL plot "$DB" --kind wa-util --data "$T/nodir/a.dat"
expect 1 "gnuplot missing" "install gnuplot" -- env FLASHLAB_GNUPLOT="$T/no-gnuplot" $FL plot "$DB" --kind wa-util -o "$T/a.png"
echo keep > "$T/keep.png"
expect 1 "gnuplot failing" "gnuplot failed" -- env FLASHLAB_GNUPLOT=false $FL plot "$DB" --kind wa-util -o "$T/keep.png"
[ "$(cat "$T/keep.png")" = keep ] && ok || bad "a failed render changed the output file"

# ---- the data tables (no gnuplot needed) ---------------------------------------------
expect 0 "mount-size --data" "12 points" -- $FL plot "$DB" --kind mount-size --data "$T/m.dat"
grep -q "^logfs${TAB}16777216${TAB}2000000\$" "$T/m.dat" && ok || bad "mount table row: $(cat "$T/m.dat")"
grep -q "^yaffs${TAB}1073741824${TAB}5592405\$" "$T/m.dat" && ok || bad "mount table mean"
[ "$(grep -vc '^#' "$T/m.dat")" -eq 12 ] && ok || bad "mount table has 12 rows"
expect 0 "wa-util --data" "5 series" -- $FL plot "$DB" --kind wa-util --data "$T/w.dat"
# the y axis says which WA: steady-state data WA unless --wa says otherwise
grep -q "steady-state data WA" "$T/w.dat" && ok || bad "wa-util table: which WA ($(head -3 "$T/w.dat"))"
expect 0 "wa-util --wa cumulative" "5 series" -- $FL plot "$DB" --kind wa-util --wa cumulative --data "$T/wc.dat"
grep -q "cumulative total WA" "$T/wc.dat" && ok || bad "wa-util --wa cumulative table: which WA"
grep -q "^greedy${TAB}0.7${TAB}" "$T/w.dat" && ok || bad "wa-util table: greedy at 0.7"
grep -q "^greedy model (uniform random, Np=64)${TAB}0.5${TAB}" "$T/w.dat" && ok || bad "wa-util table: the model"
expect 0 "lifetime --data" "3 series" -- $FL plot "$DB" --kind lifetime --by fs.gc_policy --data "$T/l.dat"
grep -q "^greedy${TAB}1${TAB}5000000000000\$" "$T/l.dat" && ok || bad "lifetime from kv: $(cat "$T/l.dat")"
grep -q "^fifo${TAB}2${TAB}21474836480\$" "$T/l.dat" && ok || bad "lifetime from the last sample"
expect 0 "--by utilisation" "2 series" -- $FL plot "$DB" --kind lifetime --by utilisation --data "$T/b.dat"
grep -q "^0.85${TAB}2${TAB}" "$T/b.dat" && ok || bad "--by groups: $(cat "$T/b.dat")"
expect 0 "--run" "1 series, 20 points" -- $FL plot "$DB" --kind wa-time --run 2 --x time --data "$T/t.dat"
grep -q "^greedy${TAB}10000000000${TAB}" "$T/t.dat" && ok || bad "--x time uses sim_time_ns"
grep -q "cumulative total WA" "$T/t.dat" && ok || bad "wa-time's default y: cumulative WA"
# --wa interval: the samples' wa_interval (the fixture's 10 + k), said so
expect 0 "wa-time --wa interval" "1 series, 20 points" -- $FL plot "$DB" --kind wa-time --run 2 --wa interval --data "$T/ti.dat"
grep -q "^greedy${TAB}1073741824${TAB}10\$" "$T/ti.dat" && grep -q "^greedy${TAB}21474836480${TAB}29\$" "$T/ti.dat" && ok || bad "wa-time --wa interval: $(grep -v '^#' "$T/ti.dat" | head -2)"
grep -q "wa_interval: data WA since the previous sample" "$T/ti.dat" && ok || bad "wa-time --wa interval table: which WA"
expect 2 "wa-util --wa interval" "--wa interval is per sample: plot it with --kind wa-time" -- $FL plot "$DB" --kind wa-util --wa interval -o "$T/a.png"
expect 2 "wa-time --wa steady" "--wa steady is one value per run: wa-time takes cumulative or interval" -- $FL plot "$DB" --kind wa-time --wa steady -o "$T/a.png"
expect 0 "erase-cdf --data" "6 series" -- $FL plot "$DB" --kind erase-cdf --data "$T/c.dat"
[ "$(grep -c "${TAB}1\$" "$T/c.dat")" -eq 6 ] && ok || bad "every CDF ends at 1"

# ---- sweeps: series named by the swept keys, seeds averaged, panels --------------------
# seeds.db: 2 policies x 2 wear-leveling modes x 2 fills x 3 seeds; each
# setting's seeds have mean base + k/4 and standard deviation 1 (plot_fixture.c).
S="$T/seeds.db"
expect 0 "sweep wa-util: named by the keys that differ" "6 series, .* named by gc_policy, wear_leveling, mean +- 1 sd" -- $FL plot "$S" --kind wa-util --data "$T/s.dat"
grep -q "^# series${TAB}x${TAB}y${TAB}sd${TAB}n\$" "$T/s.dat" && ok || bad "sweep table header: $(cat "$T/s.dat")"
grep -q "^greedy, dynamic${TAB}0.6${TAB}2.75${TAB}1${TAB}3\$" "$T/s.dat" && ok || bad "sweep mean, sd, n: $(cat "$T/s.dat")"
grep -q "^fifo, static${TAB}0.8${TAB}4.5${TAB}1${TAB}3\$" "$T/s.dat" && ok || bad "sweep mean at 0.8"
[ "$(grep -c "${TAB}3\$" "$T/s.dat")" -eq 8 ] && ok || bad "4 settings x 2 fills, 3 seeds each"
! grep -q "run " "$T/s.dat" && ok || bad "a series named by its run"
expect 0 "sweep wa-time: 8 settings, no panels" "8 series, 32 points, named by gc_policy, wear_leveling, fill, mean" -- $FL plot "$S" --kind wa-time --data "$T/t8.dat"
grep -q "^fifo, dynamic, fill=0.8${TAB}4294967296${TAB}4.25${TAB}1${TAB}3\$" "$T/t8.dat" && ok || bad "wa-time mean of the seeds: $(grep fifo "$T/t8.dat")"
expect 0 "--by two keys" "4 series, 16 points, named by gc_policy, wear_leveling" -- $FL plot "$S" --kind wa-time --by fs.gc_policy,fs.wear_leveling --data "$T/t4.dat"
grep -q "^greedy, static${TAB}1073741824${TAB}2.5${TAB}[0-9.]*${TAB}6\$" "$T/t4.dat" && ok || bad "--by two keys: the mean over fills and seeds: $(grep static "$T/t4.dat")"
expect 0 "--facet" "2 panels by fill" -- $FL plot "$S" --kind erase-cdf --facet workload.fill --data "$T/f.dat"
grep -q "^greedy, static, fill=0.6${TAB}12${TAB}0.6666666666666666${TAB}0.57735026918962[0-9]*${TAB}3$" "$T/f.dat" && ok || bad "--facet: CDF mean: $(grep 'greedy, static, fill=0.6' "$T/f.dat")"
expect 0 "lifetime of a sweep" "8 series, 24 points" -- $FL plot "$S" --kind lifetime --data "$T/lt.dat"
expect 2 "unknown --by key" "unknown --by key 'fs.gc_polcy'; the runs drawn have: fs.gc_policy, fs.wear_leveling, workload.fill" -- $FL plot "$S" --kind wa-util --by fs.gc_policy,fs.gc_polcy -o "$T/a.png"
expect 2 "unknown --facet key" "unknown --facet key 'fill'" -- $FL plot "$S" --kind wa-time --facet fill -o "$T/a.png"
expect 2 "bad --facet" "bad --facet key 'a..b'" -- $FL plot "$S" --kind wa-time --facet a..b -o "$T/a.png"
expect 2 "bad key in a --by list" "bad --by key 'x.'" -- $FL plot "$S" --kind wa-time --by fs.gc_policy,x. -o "$T/a.png"
[ ! -e "$T/a.png" ] && ok || bad "a usage error wrote its output"

# ---- drawing ------------------------------------------------------------------------------
if ! command -v gnuplot >/dev/null 2>&1 && [ -z "${FLASHLAB_GNUPLOT:-}" ]; then
    echo "test_plot_cli: gnuplot not installed: drawing checks skipped"
    skipped=$((skipped + 1))
else
    TERMS=$(echo 'set print "-"; print GPVAL_TERMINALS' | ${FLASHLAB_GNUPLOT:-gnuplot} 2>/dev/null)
    FORMATS="png svg"
    if printf ' %s \n' "$TERMS" | grep -q ' pdfcairo '; then
        FORMATS="$FORMATS pdf"
    else
        echo "test_plot_cli: gnuplot has no pdfcairo terminal: PDF checks skipped"
        skipped=$((skipped + 1))
        expect 1 "pdf without pdfcairo" "no terminal for PDF" -- $FL plot "$DB" --kind wa-util -o "$T/a.pdf"
    fi
    for k in $KINDS; do
        for f in $FORMATS; do
            expect 0 "$k to $f" "series" -- $FL plot "$DB" --kind $k -o "$T/$k.$f"
            drawn "$k to $f" "$T/$k.$f" $f
        done
    done
    for k in erase-hist erase-cdf wa-util wa-time lifetime; do
        expect 0 "sweep $k to png" "series" -- $FL plot "$S" --kind $k -o "$T/sweep-$k.png"
        drawn "sweep $k to png" "$T/sweep-$k.png" png
    done
    expect 0 "panels to svg" "2 panels by gc_policy" -- $FL plot "$S" --kind wa-time --facet fs.gc_policy --by fs.wear_leveling,workload.fill -o "$T/panels.svg"
    drawn "panels to svg" "$T/panels.svg" svg
    expect 0 "upper-case extension" "" -- $FL plot "$DB" --kind wa-util -o "$T/UP.PNG"
    drawn "upper-case extension" "$T/UP.PNG" png
    # Quotes, a newline, gnuplot and shell syntax in the name: used as given,
    # running nothing (the commands would touch files in $T, the cwd here).
    odd="it's \"odd\" \`touch pwned\` \$(touch pwned2) system('touch pwned3')
set output.svg"
    FLA=$(cd "$(dirname "$FL")" && pwd)/$(basename "$FL")
    expect 0 "awkward output name" "" -- sh -c 'cd "$1" && "$2" plot "$3" --kind mount-size -o "$4"' sh "$T" "$FLA" "$DB" "$odd"
    drawn "awkward output name" "$T/$odd" svg
    [ ! -e "$T/pwned" ] && [ ! -e "$T/pwned2" ] && [ ! -e "$T/pwned3" ] && ok || bad "the output name ran a command"
    expect 0 "image and table at once" "" -- $FL plot "$DB" --kind erase-hist -o "$T/both.png" --data "$T/both.dat"
    drawn "image and table at once" "$T/both.png" png
    [ -s "$T/both.dat" ] && ok || bad "image and table at once: no table"
    cmp -s "$DB" "$T/before.db" && ok || bad "plot changed the DB"
    [ ! -e "$DB-wal" ] && [ ! -e "$DB-shm" ] && ok || bad "plot left -wal/-shm files"
fi
[ -z "$(ls -A "$T/tmp")" ] && ok || bad "temporary files left behind: $(ls -A "$T/tmp")"

# ---- real runs: the models of their workload, with the Np the runner recorded ----
# (LogFS counts 31 blocks of 4 KiB and their headers in a 128 KiB segment: Np = 31)
# (2000 ops settle no device-fill window, so the y is the cumulative WA)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
for kind in uniform hotcold; do
    cat > "$T/$kind.yaml" <<Y
name: $kind
device: $ROOT/configs/devices/test-64m.yaml
workload: {kind: $kind, fill: 0.6}
stop: {ops: 2000}
Y
    expect 0 "run $kind" "1 complete" -- $FL run "$T/$kind.yaml" -o "$T/real.db"
done
expect 0 "real uniform runs: wa-util table" "" -- $FL plot "$T/real.db" --kind wa-util --wa cumulative --experiment uniform --data "$T/u.dat"
grep -q "^greedy model (uniform random, Np=31)${TAB}" "$T/u.dat" && grep -q "^FIFO/LRW model (uniform random)${TAB}" "$T/u.dat" &&
    ok || bad "uniform runs: the uniform models with Np=31: $(cut -f1 "$T/u.dat" | sort -u)"
grep -q "^# workload: uniform random; device: test-64m, 64 MiB$" "$T/u.dat" && ok || bad "uniform runs: the table names workload and device: $(head -3 "$T/u.dat")"
expect 0 "real hot/cold runs: wa-util table" "" -- $FL plot "$T/real.db" --kind wa-util --wa cumulative --experiment hotcold --data "$T/h.dat"
! grep -q "uniform random" "$T/h.dat" && grep -q "^FIFO/LRW model (hot/cold 90/10, one log)${TAB}" "$T/h.dat" &&
    ok || bad "hot/cold runs: only the hot/cold model: $(cut -f1 "$T/h.dat" | sort -u)"

echo "test_plot_cli: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
