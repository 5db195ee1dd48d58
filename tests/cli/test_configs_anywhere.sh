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
echo "test_configs_anywhere: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
