# lib.sh -- helpers shared by the CLI shell tests (sourced, not run).
# Each test sets FL, T (a temp dir removed on exit) and counts with ok/bad;
# expect CODE DESCRIPTION PATTERN -- command... checks exit code and output.
FL=${FL:-./build/flashlab}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passed=0; failed=0
ok()   { passed=$((passed + 1)); }
bad()  { failed=$((failed + 1)); echo "FAIL: $1"; }
expect() {
    code=$1; what=$2; pat=$3; shift 4
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" -ne "$code" ]; then bad "$what: exit $rc, expected $code: $out"; return; fi
    if [ -n "$pat" ] && ! printf '%s\n' "$out" | grep -q -- "$pat"; then
        bad "$what: output lacks '$pat': $out"; return
    fi
    ok
}
