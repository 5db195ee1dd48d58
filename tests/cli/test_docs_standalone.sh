#!/bin/sh
# The repository stands alone: no tracked file cites material kept outside
# it (a shared folder beside the project, or the reference list kept
# there), and every citation of docs/references.md -- "docs/references.md §N",
# "... section N" or a link to one of its headings' anchors -- names a
# section that exists there.  (Patterns are split below so that this file
# does not match them itself.)
# Needs git (to list the tracked files); skipped without it.
. "$(dirname "$0")/lib.sh"
skipped=0
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REF=docs/references.md
cd "$ROOT" || exit 1

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    skipped=1
    echo "test_docs_standalone: $passed passed, $failed failed, $skipped skipped"
    exit 0
fi

# Tracked text files, without the binary fuzz seeds (images, mount states)
# and pictures; files deleted in the work tree are passed over.
git ls-files | grep -v -e '^fuzz/corpus/image/' -e '^fuzz/corpus/mount/' \
    -e '\.png$' -e '\.img$' > "$T/all"
: > "$T/files"
while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f" >> "$T/files"; done < "$T/all"
[ -s "$T/files" ] && ok || bad "git ls-files listed no files"

# grep_files PATTERN: "file:line:text" for every match of the ERE in a
# tracked text file (-I: binary files are skipped).
grep_files() { tr '\n' '\0' < "$T/files" | xargs -0 grep -I -n -E -- "$1" 2>/dev/null; }

# ---- nothing cites outside the repository ------------------------------------------
# The patterns are split so that this file does not match them itself.
SHARED_REF='shared/REF''ERENCES'
DOTDOT_SHARED='\.\./sha''red([/`"'"'"' )]|$)'
WORK_SHARED='/work/sha''red'
for pat in "$SHARED_REF" "$DOTDOT_SHARED" "$WORK_SHARED"; do
    hits=$(grep_files "$pat")
    [ -z "$hits" ] && ok || bad "files cite outside the repository ($pat):
$hits"
done
# The bare upper-case name of that list, as a citation ("... section 3",
# "....md", "... says"); SQL foreign keys ("... runs(id)") are not
# citations.
hits=$(grep_files 'REF''ERENCES' | grep -v -E 'REF''ERENCES [A-Za-z_][A-Za-z0-9_]* ?\(')
[ -z "$hits" ] && ok || bad "files cite the outside reference list:
$hits"

# ---- every cited section of docs/references.md exists ------------------------------
if [ ! -f "$REF" ]; then
    bad "$REF is missing"
    echo "test_docs_standalone: $passed passed, $failed failed, $skipped skipped"; exit 1
fi
# Section numbers of its headings ("## 1. NAND ...", "### 1.2 MLC ...").
sed -n -E 's/^#{2,6} ([0-9]+(\.[0-9]+)*)[. ].*/\1/p' "$REF" | sort -u > "$T/numbers"
# GitHub's anchors of its headings: lower case, punctuation dropped, blanks
# to hyphens.
sed -n -E 's/^#{1,6} +//p' "$REF" | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g' \
    | sort -u > "$T/anchors"
[ -s "$T/numbers" ] && ok || bad "$REF has no numbered sections"

# Section numbers cited as "references.md §N", "references.md` §N" or
# "references.md section N" (optionally "§ N" and "§N.M").
grep_files 'references\.md`?\]?[ )]*(§ ?|section )[0-9]' \
    | grep -o -E 'references\.md`?\]?[ )]*(§ ?|section )[0-9]+(\.[0-9]+)*' \
    | sed -E 's/.*(§ ?|section )//' | sort -u > "$T/cited"
[ -s "$T/cited" ] && ok || bad "nothing cites a section of $REF (the pattern is broken?)"
while IFS= read -r n; do
    if grep -q -x -F -- "$n" "$T/numbers"; then ok; else
        bad "section $n of $REF is cited but does not exist: $(grep_files "references\.md\`?\]?[ )]*(§ ?|section )$n([^0-9.]|\.[^0-9]|$)" | head -n 3)"
    fi
done < "$T/cited"

# Anchors cited as links to the page plus "#anchor" (from docs/ or the root).
grep_files 'references\.md#' | grep -o -E 'references\.md#[A-Za-z0-9_-]+' \
    | sed 's/.*#//' | sort -u > "$T/links"
while IFS= read -r a; do
    if grep -q -x -F -- "$a" "$T/anchors"; then ok; else
        bad "anchor #$a of $REF is linked but no heading makes it: $(grep_files "references\.md#$a" | head -n 3)"
    fi
done < "$T/links"

# The page's own links to its headings ("](#anchor)").
grep -o -E '\]\(#[A-Za-z0-9_-]+\)' "$REF" | sed -E 's/^\]\(#//; s/\)$//' | sort -u > "$T/own"
while IFS= read -r a; do
    grep -q -x -F -- "$a" "$T/anchors" && ok || bad "$REF links to #$a, which no heading makes"
done < "$T/own"

# ---- the checker itself catches what it should --------------------------------------
printf '# x\n## 1. One\n### 1.2 Sub\n' > "$T/ref.md"
one=$(sed -n -E 's/^#{2,6} ([0-9]+(\.[0-9]+)*)[. ].*/\1/p' "$T/ref.md" | tr '\n' ' ')
[ "$one" = "1 1.2 " ] && ok || bad "heading numbers parsed as '$one'"
anc=$(sed -n -E 's/^#{1,6} +//p' "$T/ref.md" | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g' | tr '\n' ' ')
[ "$anc" = "x 1-one 12-sub " ] && ok || bad "heading anchors made as '$anc'"
printf 'see docs/ref''erences.md §7 and %s.md s.2\n' "../sha""red/REF""ERENCES" > "$T/bad.txt"
grep -q -E "$DOTDOT_SHARED" "$T/bad.txt" && grep -q -E "$SHARED_REF" "$T/bad.txt" && ok \
    || bad "the outside-citation patterns miss a plain citation"
printf 'run_id INTEGER NOT NULL %s runs(id),\n' "REF""ERENCES" \
    | grep -v -E 'REF''ERENCES [A-Za-z_][A-Za-z0-9_]* ?\(' | grep -q . && bad "an SQL foreign key counts as a citation" || ok

echo "test_docs_standalone: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
