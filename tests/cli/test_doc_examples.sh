#!/bin/sh
# The flashlab command lines the documentation shows (README.md, docs/*.md,
# python/README.md: lines of code blocks that start with `flashlab` or
# `build/flashlab`).  Every one names a real command (and `sim` command)
# and only long options that command's --help lists; synopsis lines (with
# [..] or placeholders such as IMAGE, DEV.yaml) are checked the same way.
# And the README's walk-through -- a device, LogFS files, a JFFS2 image,
# fsck -- runs as written, in order, and every command succeeds.  Campaigns,
# sweeps, plots and mounts have suites of their own (test_run_cli,
# test_powercut_cli, test_faults_cli, test_plot_cli, test_mount, and
# test_format_example for FORMAT.md's worked example).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FLA=$(cd "$(dirname "$FL")" && pwd)/$(basename "$FL")

# doc_lines FILE...: "file:line<TAB>command" for each documented command line
doc_lines() {
    python3 - "$@" <<'PY'
import re, sys
for path in sys.argv[1:]:
    fence = False
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith("```"):
            fence = not fence
            continue
        if not (fence or line.startswith("    ")):
            continue
        cmd = re.sub(r"^\s*(\$ )?", "", line.rstrip("\n"))
        if not re.match(r"(build/)?flashlab [a-z][a-z0-9-]*( |$)", cmd):  # not output
            continue
        cmd = re.sub(r"\s+#.*$", "", cmd)          # a trailing comment
        print("%s:%d\t%s" % (path, n, cmd))
PY
}

cd "$ROOT" || exit 1
doc_lines README.md docs/*.md python/README.md > "$T/lines"
n=$(wc -l < "$T/lines")
[ "$n" -gt 60 ] && ok || bad "only $n documented command lines found"

# ---- every line: the command exists, its long options too --------------------
$FL --help > "$T/top.help" 2>&1
checked=0
while IFS="$(printf '\t')" read -r where cmd; do
    set -f
    # shellcheck disable=SC2086
    set -- $cmd
    set +f
    shift                                  # flashlab
    sub=$1
    if ! grep -q "^  $sub " "$T/top.help"; then
        bad "$where: no command '$sub': $cmd"
        continue
    fi
    helpcmd=$sub
    if [ "$sub" = sim ] && [ $# -ge 2 ]; then
        $FL sim --help > "$T/sim.help" 2>&1
        if grep -q "^  $2 " "$T/sim.help"; then helpcmd="sim $2"; else
            bad "$where: no command 'sim $2': $cmd"; continue; fi
    fi
    # shellcheck disable=SC2086
    $FL $helpcmd --help > "$T/sub.help" 2>&1
    for w in "$@"; do
        case $w in
        --*=*) opt=${w%%=*} ;;
        --?*) opt=$w ;;
        *) continue ;;
        esac
        grep -q -- "$opt\\b" "$T/sub.help" || bad "$where: '$helpcmd --help' has no $opt: $cmd"
    done
    checked=$((checked + 1))
done < "$T/lines"
[ "$checked" -eq "$n" ] && ok || bad "$checked of $n lines checked"

# ---- the README's walk-through, run as written --------------------------------
W="$T/walk"
mkdir -p "$W/build"
ln -s "$FLA" "$W/build/flashlab"
ln -s "$ROOT/configs" "$W/configs"
cp README.md "$W/README.md"
# the blocks from "### The simulator" up to the power-cut campaign
awk -F '\t' '$1 ~ /^README.md:/ {print $2}' "$T/lines" |
    sed -n '/sim create --device configs\/devices\/olpc-xo1-slc-1g.yaml/,/flashlab fsck/p' > "$T/walk.sh"
[ "$(wc -l < "$T/walk.sh")" -ge 15 ] && ok || bad "the README's walk-through: $(cat "$T/walk.sh")"
i=0
while IFS= read -r cmd; do
    i=$((i + 1))
    if (cd "$W" && eval "$cmd") > "$T/walk.out" 2>&1; then ok
    else bad "README step $i failed: $cmd: $(head -5 "$T/walk.out")"; fi
done < "$T/walk.sh"
# what the steps say they do
expect 0 "README: the page written reads back" "5a 5a 5a" -- $FL sim read "$W/xo1.img" 5 0
expect 0 "README: the copied file" "Two commands" -- $FL cat "$W/fs.img:/docs/README.md"
expect 0 "README: the JFFS2 image holds it" "README.md" -- $FL ls --fs jffs2-summary "$W/js.img"
[ -s "$W/xo1.nanddump" ] && ok || bad "README: no nanddump written"

echo "test_doc_examples: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
