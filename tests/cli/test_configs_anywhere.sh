#!/bin/sh
# A first-time user's view: every shipped config and the demo run from any
# directory, not only from the repository root (files a config names are
# found beside the config; the program finds its own device presets).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FLA=$(cd "$(dirname "$FL")" && pwd)/$(basename "$FL")
cd "$T" || exit 1
for c in "$ROOT"/configs/*.yaml; do
    expect 0 "run --list-runs $(basename "$c") from elsewhere" "" -- "$FLA" run --list-runs "$c"
done
expect 0 "sim demo from elsewhere" "snapshot: restored" -- "$FLA" sim demo
# a config copied elsewhere without its devices/ says which file is missing
cp "$ROOT/configs/demo.yaml" "$T/alone.yaml"
expect 1 "a missing device file is named" "devices/test-64m.yaml" -- "$FLA" run --list-runs "$T/alone.yaml"
# a path in a YAML file is relative to that file's directory, never the
# current one: from the repository root, a config in $T naming
# configs/devices/... is refused, and the error says where it looked
mkdir -p "$T/sub"
printf 'device: configs/devices/test-64m.yaml\nworkload: {kind: uniform}\nstop: {ops: 5}\n' > "$T/sub/cwd.yaml"
expect 1 "a CWD-relative device path is refused" \
    "configs/devices/test-64m.yaml: no such file (looked for $T/sub/configs/devices/test-64m.yaml: a relative path is relative to the experiment's directory, $T/sub/, not the current one); configs/devices/test-64m.yaml exists from the current directory" \
    -- sh -c "cd '$ROOT' && '$FLA' run --list-runs '$T/sub/cwd.yaml'"
printf 'device: %s\nworkload: {kind: trace, trace: nope.csv}\nstop: {ops: 5}\n' "$ROOT/configs/devices/test-64m.yaml" > "$T/sub/tr.yaml"
expect 1 "a missing trace says where it looked" "workload.trace: nope.csv: no such file (looked for $T/sub/nope.csv" \
    -- "$FLA" run --list-runs "$T/sub/tr.yaml"
mkdir -p "$T/sub/d" && cp "$ROOT/configs/devices/test-64m.yaml" "$T/sub/d/dev.yaml"
printf 'device: d/dev.yaml\nworkload: {kind: uniform}\nstop: {ops: 5}\n' > "$T/sub/rel.yaml"
expect 0 "a path relative to the YAML file works from anywhere" "" -- sh -c "cd / && '$FLA' run --list-runs '$T/sub/rel.yaml'"
echo "test_configs_anywhere: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
