#!/bin/sh
# scripts/ssd-fs-wear.sh CSV PNG: which file system wears the simulated
# flash least, and at what write amplification.  One fio job -- a file of
# FILE_MIB written sequentially in 1 MiB O_DIRECT writes (not measured),
# then RAND_MIB of random 4 KiB O_DIRECT writes over it (measured: size-
# bound, one job, queue depth 1, seed 1, so every run writes the same
# bytes) -- runs on ext4, XFS and btrfs, each made by its mkfs on a loop
# device over a fresh FTL image (`flashlab mount --block`), and on LogFS
# (a flashlab mount of a LogFS image), all on the same NAND preset
# (DEVICE).  CSV gets one line per file system, from `flashlab stats`
# before and after the measured part:
#   device              the NAND preset's name
#   file_bytes          the file's size (FILE_MIB)
#   fs                  ext4, xfs, btrfs or logfs
#   fio_bytes           bytes fio wrote in the measured part (its io_bytes)
#   below_bytes         bytes the file system handed to what manages the
#                       flash: the FTL's host bytes, or LogFS's host bytes
#   flash_bytes         pages programmed x page size
#   gc_bytes            of them, pages GC (FTL) or the cleaner (LogFS) moved
#   wa                  flash_bytes / fio_bytes: the flash written per byte
#                       the application wrote
#   wa_fs               below_bytes / fio_bytes (the file system's own)
#   wa_below            flash_bytes / below_bytes (the FTL's WA; LogFS's)
#   erases              blocks erased in the measured part
#   erases_max, erases_mean   erase counts per block at the end
#   wall_seconds        host time of the measured part
# and PNG the figure (stacked bars: what the file system wrote, what GC
# moved; labels: WA and erases).  PLOT_ONLY=1 redraws PNG from CSV.  As
# root, with fio, e2fsprogs, xfsprogs, btrfs-progs, losetup, gnuplot
# (make deps).  FL names the flashlab
# program (default build/flashlab); DEVICE, FILE_MIB, RAND_MIB and FSES
# (default "ext4 xfs btrfs logfs") change the job.  `make ssd-figure`
# runs it into docs/img/; docs/ftl.md has the numbers.
set -eu
csv=$1; png=$2
case $csv in /*) ;; *) csv=$PWD/$csv ;; esac
case $png in /*) ;; *) png=$PWD/$png ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
FL=${FL:-$root/build/flashlab}
case $FL in /*) ;; *) FL=$PWD/$FL ;; esac
DEVICE=${DEVICE:-$root/configs/devices/olpc-xo1-slc-1g.yaml}
FILE_MIB=${FILE_MIB:-320}
RAND_MIB=${RAND_MIB:-1024}
FSES=${FSES:-ext4 xfs btrfs logfs}
if [ "${PLOT_ONLY:-}" != 1 ]; then
    for t in fio losetup gnuplot mkfs.ext4 mkfs.xfs mkfs.btrfs fusermount3 flock; do
        command -v "$t" >/dev/null || { echo "ssd-fs-wear: $t not found (make deps)" >&2; exit 1; }
    done
    [ "$(id -u)" -eq 0 ] || { echo "ssd-fs-wear: needs root (losetup, mount)" >&2; exit 1; }
    # the mounts in a namespace of our own: they vanish with the script, and
    # a namespace another process makes meanwhile does not copy them
    if [ -z "${SSD_FS_WEAR_NS:-}" ] && unshare -m --propagation private true 2>/dev/null; then
        SSD_FS_WEAR_NS=1 FL=$FL exec unshare -m --propagation private sh "$0" "$@"
    fi
fi
tmp=$(mktemp -d /tmp/ssd-fs-wear.XXXXXX)
M=$tmp/flash; K=$tmp/fs; L=""
mkdir -p "$M" "$K"
cleanup() {
    set +e
    grep -q " $K " /proc/mounts && umount "$K"
    [ -n "$L" ] && losetup -d "$L"
    grep -q " $M " /proc/mounts && fusermount3 -u "$M" && flock -w 60 "$tmp/img.lock" true
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# counters KEY...: the values of `flashlab stats` on the flash mount, one line
counters() { "$FL" stats "$M" "$@" | tr '\n' ' '; }
KEYS="nand.programs nand.erases fs.host_bytes fs.pages_gc nand.page_size"

fio_job() { # fio_job DIR: fill (not counted), then the measured random writes
    common="--filename=$1/fio.dat --size=${FILE_MIB}M --direct=1 --ioengine=psync --fallocate=none"
    # shellcheck disable=SC2086
    fio --name=fill $common --rw=write --bs=1M --end_fsync=1 --output-format=terse >/dev/null
    sync
    before=$(counters $KEYS); t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    fio --name=rand $common --rw=randwrite --bs=4k --io_size=${RAND_MIB}M --norandommap \
        --randseed=1 --end_fsync=1 --output-format=json > "$tmp/fio.json"
    sync
    after=$(counters $KEYS $WEAR); t1=$(date +%s.%N)
    fio_bytes=$(sed -n 's/^ *"io_bytes" : \([1-9][0-9]*\),*$/\1/p' "$tmp/fio.json" | head -n 1)
}
WEAR="wear.erases_max wear.erases_mean"

# plot_csv CSV PNG: the figure, from a CSV of this script
plot_csv() {
    awk -F, 'NR > 1 { n = $3 == "xfs" ? "XFS" : $3 == "logfs" ? "LogFS" : $3
                      printf "%s %.4f %.4f %.4f %d %s\n", n, ($6 - $7) / $4, $7 / $4, $8, $11, $12 }' \
        "$1" > "$tmp/bars.dat"
    title=$(awk -F, 'NR == 2 { printf "Random 4 KiB writes (%d MiB into a %d MiB file) on %s",
                               $4 / 1048576, $2 / 1048576, $1 }' "$1")
    (cd "$tmp" && gnuplot) <<GP
set terminal pngcairo size 1300,800 font ",22" noenhanced linewidth 2
set output 'fig.png'
set title "$title" font ",22"
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.6
set ylabel "flash written / bytes fio wrote (WA)" font ",18"
set yrange [0:*]
set offsets 0, 0, graph 0.2, 0
set grid ytics
set tics font ",18"
set key below center horizontal Left reverse font ",16" samplen 2 nobox
set xtics nomirror
plot 'bars.dat' using 2:xtic(1) lc rgb '#0072B2' title 'written by the file system', \
     '' using 3 lc rgb '#E69F00' title 'moved by GC (FTL, or the LogFS cleaner)', \
     '' using 0:4:(sprintf("WA %.2f\n%d erases\nmax %d per block", \$4, \$5, \$6)) with labels offset 0,2.2 font ",16" notitle
GP
    cp "$tmp/fig.png" "$2"
}
if [ "${PLOT_ONLY:-}" = 1 ]; then
    plot_csv "$csv" "$png"
    exit 0
fi

echo "device,file_bytes,fs,fio_bytes,below_bytes,flash_bytes,gc_bytes,wa,wa_fs,wa_below,erases,erases_max,erases_mean,wall_seconds" > "$csv"
dev=$(basename "$DEVICE" .yaml)
for fs in $FSES; do
    rm -f "$tmp/img" "$tmp/img.journal"
    "$FL" sim create --device "$DEVICE" "$tmp/img" >/dev/null
    if [ "$fs" = logfs ]; then
        "$FL" mkfs "$tmp/img" >/dev/null
        "$FL" mount "$tmp/img" "$M"
        fio_job "$M"
    else
        "$FL" mkfs --fs ftl "$tmp/img" >/dev/null
        "$FL" mount --block "$tmp/img" "$M" 2>/dev/null
        L=$(losetup -f --show --direct-io=on "$M/disk")
        case $fs in
        ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$L" ;;
        xfs) mkfs.xfs -q -f "$L" ;;
        btrfs) mkfs.btrfs -q -f "$L" ;;
        *) echo "ssd-fs-wear: unknown file system '$fs'" >&2; exit 1 ;;
        esac
        mount -t "$fs" "$L" "$K"
        fio_job "$K"
        umount "$K"; losetup -d "$L"; L=""
    fi
    "$FL" stats "$M" >&2
    fusermount3 -u "$M"; flock -w 60 "$tmp/img.lock" true
    echo "$fs $fio_bytes $before $after $t0 $t1" | awk -v dev="$dev" -v file=$((FILE_MIB << 20)) '{
        fio = $2; ps = $7
        prog = $8 - $3; er = $9 - $4; below = $10 - $5; gc = ($11 - $6) * ps
        printf "%s,%d,%s,%d,%d,%d,%d,%.4f,%.4f,%.4f,%d,%d,%s,%.1f\n", dev, file, $1, fio, below, prog * ps, gc,
               prog * ps / fio, below / fio, prog * ps / below, er, $13, $14, $16 - $15
    }' >> "$csv"
    tail -n 1 "$csv"
done

plot_csv "$csv" "$png"
echo "ssd-fs-wear: $csv, $png"
