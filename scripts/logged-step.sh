# Sourced by scripts/gpu-check.sh and scripts/cpu-tier-check.sh, which set $out (a folder) and
# $summary (a file) first.
#
# step NAME TIMEOUT COMMAND...: runs one step with a time limit, its output in $out/NAME.log, its
# exit code, time and last lines in the summary; then archives $out as $out.tar.gz, so that a run
# stopped by a time limit still leaves the logs of every step so far.
step() {
    local name=$1 limit=$2
    shift 2
    local start=$SECONDS
    timeout "$limit" "$@" > "$out/$name.log" 2>&1
    local rc=$?
    printf '%-16s rc=%-3d %4ds\n' "$name" "$rc" $((SECONDS - start)) >> "$summary"
    tail -n 4 "$out/$name.log" | sed "s/^/    /" >> "$summary"
    tar czf "$out.tar.gz" -C "$out" .
}
