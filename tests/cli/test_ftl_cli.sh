#!/bin/sh
# The FTL from the command line (docs/ftl.md): the commands its
# introduction shows run as written (a device, mkfs --fs ftl, put to
# /disk, the shipped GC-policy experiment); what put wrote reads back
# after the unmount; bad options name themselves; the shipped experiment
# records WA, erases and GC victims for every policy.
. "$(dirname "$0")/lib.sh"
ROOT=$PWD
FLA=$(cd "$(dirname "$FL")" && pwd)/$(basename "$FL")
head -c 300000 /dev/urandom > "$T/data.bin"
# the introduction's commands, from the doc itself
python3 - "$ROOT/docs/ftl.md" > "$T/cmds" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("```")[1].strip().splitlines()
print("\n".join(lines))
PY
[ "$(wc -l < "$T/cmds")" -eq 4 ] && ok || bad "docs/ftl.md's introduction: 4 commands expected"
mkdir "$T/w" && ln -s "$ROOT/configs" "$T/w/configs" && cp "$T/data.bin" "$T/w/"
while read -r cmd; do
    out=$(cd "$T/w" && eval "$FLA ${cmd#flashlab }" 2>&1) && ok || bad "$cmd: $out"
done < "$T/cmds"
# what put wrote reads back
expect 0 "get /disk" "" -- $FL get "$T/w/ssd.img:/disk" "$T/disk.out"
cmp -n 300000 "$T/data.bin" "$T/disk.out" >/dev/null && ok || bad "/disk does not hold what put wrote"
expect 0 "ls lists /disk alone" "^disk$" -- $FL ls "$T/w/ssd.img:/"
expect 0 "df of the FTL" "^fs: *ftl$" -- $FL df "$T/w/ssd.img"
$FL df "$T/w/ssd.img" | grep -q "where the space went" &&
    bad "df shows a log-structured fs's breakdown for the FTL" || ok
expect 2 "a bad option names itself" "bad option 'gc_choices=0'" -- \
    $FL mkfs --force --fs ftl -o gc_choices=0 "$T/w/ssd.img"
expect 1 "a mkdir is refused" "" -- $FL mkdir "$T/w/ssd.img:/d"
# blockfs on the FTL is found without --fs (not taken for the bare FTL)
$FL sim create --device "$ROOT/configs/devices/test-64m.yaml" "$T/bf.img" >/dev/null &&
    $FL mkfs --fs blockfs -o dev=ftl "$T/bf.img" >/dev/null && ok || bad "mkfs blockfs dev=ftl"
expect 0 "put on blockfs over the FTL" "" -- $FL put "$T/data.bin" "$T/bf.img:/f"
expect 0 "df probes blockfs inside the FTL" "^fs: *blockfs$" -- $FL df "$T/bf.img"
expect 0 "ls lists its file" "^f$" -- $FL ls "$T/bf.img:/"
# the shipped experiment: every policy ran, GC included
db="$T/w/results/ftl-gc-policies.db"
n=$(sqlite3 "$db" "select count(*) from final where fs_kind = 'ftl' and status = 'complete'
                   and wa > 1 and erases > 0 and gc_victims > 0")
[ "$n" = 5 ] && ok || bad "ftl-gc-policies: $n of 5 runs with WA > 1 and GC"
echo "test_ftl_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
