# shellcheck shell=bash
# `narrate CMD...`: run CMD with its output shown as it comes, and after every 15 s without a new
# line say that it is still working, for how long, and at which step (pip's last step line).
# Sourced by scripts/lab.sh: a first install is minutes of downloads and unpacking, and a long
# quiet stretch ("Installing collected packages", compiling) must not look like a hang.

_narrate_step() {
    local line
    line="$(grep -E '^ *(Collecting|Downloading|Installing|Building|Preparing|Obtaining|Successfully|\[)' "$1" | tail -n 1 | cut -c1-100)"
    case "$line" in
        *"Installing collected packages"*) echo "unpacking the downloaded packages into the environment (the longest quiet step)" ;;
        *"Building"*) echo "building contextlab (its C loops are compiled here)" ;;
        "") echo "starting" ;;
        *) echo "after: ${line# }" ;;
    esac
}

narrate() {
    local log pid waited=0 quiet=0 size=0 now status=0
    log="$(mktemp)"
    "$@" > >(tee "$log") 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        waited=$((waited + 1))
        now="$(wc -c < "$log")"
        if [ "$now" != "$size" ]; then
            size="$now"
            quiet=0
        else
            quiet=$((quiet + 1))
        fi
        if [ "$quiet" -ge 15 ] && kill -0 "$pid" 2>/dev/null; then
            quiet=0
            echo "      ... still working, ${waited} s so far: $(_narrate_step "$log")"
        fi
    done
    wait "$pid" || status=$?
    rm -f "$log"
    return "$status"
}
