#!/bin/sh
# Every subcommand (those `flashlab --help` and `flashlab sim --help` list)
# answers --help on stdout with exit 0, and its help has an examples
# section: a line "example:" or "examples:" followed by a flashlab command.
. "$(dirname "$0")/lib.sh"
cmds=$($FL --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] && ok || bad "flashlab --help lists no commands"
simcmds=$($FL sim --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print "sim " $1 }')
[ -n "$simcmds" ] && ok || bad "flashlab sim --help lists no commands"
has_example() {
    # $1: the help text; an "example(s):" line, then (on it or a later
    # line) a flashlab command
    printf '%s\n' "$1" | awk 'tolower($0) ~ /^examples?:/ { on = 1 } on && /flashlab / { found = 1 }
                              END { exit !found }'
}
help_of() { out=$($FL "$@" --help 2>&1); rc=$?; }
for c in "" $cmds; do
    help_of $c
    [ "$rc" -eq 0 ] && ok || bad "flashlab $c --help: exit $rc"
    has_example "$out" && ok || bad "flashlab $c --help has no examples section: $out"
done
old_ifs=$IFS; IFS='
'
for c in $simcmds; do
    IFS=$old_ifs
    help_of $c
    [ "$rc" -eq 0 ] && ok || bad "flashlab $c --help: exit $rc"
    has_example "$out" && ok || bad "flashlab $c --help has no examples section: $out"
done
IFS=$old_ifs
echo "test_help: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
