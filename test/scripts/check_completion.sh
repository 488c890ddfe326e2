#!/usr/bin/env bash
# The bash completion file offers, for each command, every option of its table (the
# output of opts_dump) and nothing of another command. Usage: check_completion.sh
# OPTS_DUMP COMPLETION_FILE
set -u
dump=$1
file=$2
# shellcheck disable=SC1090
. "$file" || { echo "FAIL: cannot source $file"; exit 1; }
fail=0
for cmd in $("$dump" | awk '{print $1}' | sort -u); do
    fn=$(complete -p "$cmd" 2>/dev/null | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
    [ -n "$fn" ] || { echo "FAIL: no completion for $cmd"; fail=1; continue; }
    COMP_WORDS=("$cmd" "-")
    COMP_CWORD=1
    COMPREPLY=()
    "$fn"
    offered=" ${COMPREPLY[*]} "
    while read -r c lng shrt _; do
        [ "$c" = "$cmd" ] || continue
        case "$offered" in *" --$lng "*) ;; *) echo "FAIL: $cmd does not offer --$lng"; fail=1 ;; esac
        if [ "$shrt" != - ]; then
            case "$offered" in *" -$shrt "*) ;; *) echo "FAIL: $cmd does not offer -$shrt"; fail=1 ;; esac
        fi
    done < <("$dump")
    n=$(echo "${COMPREPLY[*]}" | wc -w)
    m=$("$dump" | awk -v c="$cmd" '$1 == c {n++; if ($3 != "-") n++} END {print n}')
    [ "$n" = "$m" ] || { echo "FAIL: $cmd offers $n words, its table has $m"; fail=1; }
done
[ $fail = 0 ] && echo "every option of every command is offered"
exit $fail
