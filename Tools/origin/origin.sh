#!/usr/bin/env bash
# Runs a throwaway instance of the reference Larder origin (nginx.conf.template next to this
# script) on 127.0.0.1, for tests and local development. Never touches the system nginx
# service or /etc/nginx: each instance lives entirely in its own run folder.
#
#   origin.sh start <root> <run-dir>
#       <root> is the origin folder `larder publish` writes (objects/, bundles/, journeys/,
#       access/). Creates <run-dir> and empty <root>/access/{keys,grants}.map when missing,
#       picks a free port, renders <run-dir>/nginx.conf, checks it (`nginx -t`), starts
#       nginx, waits until the port accepts connections, writes <run-dir>/port and prints
#       only the port number on stdout. Fails if this run folder's nginx is already running.
#   origin.sh reload <run-dir>
#       Re-reads the config and the key maps (`nginx -s reload`) and returns once new
#       connections are served by the new configuration. A broken map is reported and the
#       running configuration stays in place (exit 1).
#   origin.sh stop <run-dir>
#       Stops that instance at once (SIGTERM: open connections are dropped; SIGKILL if it
#       has not exited after 5 s). Exits 0 when it was not running.
#   origin.sh restart <run-dir>
#       stop, then start again with the same config on the same port (from <run-dir>/port),
#       retrying while the port is briefly busy; prints the port. Used to drop connections
#       mid-download.
#
# Files in <run-dir>: nginx.conf, port, root, nginx.pid, error.log, access.log (one line per
# request: method uri status bytes "range" "if-none-match" "x-larder-key"), *_temp/.
#
# Environment: NGINX (default /usr/sbin/nginx), PYTHON (default python3; used to find a free
# port).
#
# Run as root, nginx's workers would drop to `nobody`; when `nobody` cannot read <root> (a
# 0700 temporary folder, for instance) the rendered config gets `user root;` so the workers
# read what the invoking user published.
set -euo pipefail

NGINX=${NGINX:-/usr/sbin/nginx}
PYTHON=${PYTHON:-python3}
TEMPLATE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/nginx.conf.template"

die() {
    echo "origin.sh: $*" >&2
    exit 1
}

usage() {
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
    exit 64
}

# nginx with this instance's prefix, config and startup error log (never /var/log/nginx).
nginx_for() {
    local run=$1
    shift
    "$NGINX" -p "$run/" -c "$run/nginx.conf" -e "$run/error.log" "$@"
}

# The pids of every nginx process (master and workers) of a run folder: those holding its
# error.log open. Finds workers even when their master is gone. (`-ef` compares inodes
# without forking a readlink per file.)
instance_pids() {
    local log=$1/error.log proc fd
    [[ -e $log ]] || return 0
    for proc in /proc/[0-9]*; do
        [[ $proc/exe -ef $NGINX ]] || continue
        for fd in "$proc"/fd/*; do
            if [[ $fd -ef $log ]]; then
                echo "${proc#/proc/}"
                break
            fi
        done
    done
}

# Whether any of the pids is still running. An exited nginx master stays a zombie until
# whoever adopted it (PID 1) reaps it, which can take a second: zombies count as gone,
# they hold no sockets or files.
any_alive() {
    local pid state
    for pid in "$@"; do
        state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null) || continue
        [[ -n $state && $state != Z ]] && return 0
    done
    return 1
}

# Prints the master's pid when this run folder's nginx is running.
master_pid() {
    local run=$1 pid cmd
    [[ -s $run/nginx.pid ]] || return 1
    pid=$(tr -dc '0-9' <"$run/nginx.pid")
    [[ -n $pid ]] || return 1
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
    [[ $cmd == "nginx: master process "*"$run/nginx.conf"* ]] || return 1
    echo "$pid"
}

# "<pid> <title>" for each worker of a master.
workers_of() {
    local pid
    for pid in $(pgrep -P "$1" || true); do
        echo "$pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
    done
}

free_port() {
    "$PYTHON" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

port_open() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

check_config() {
    local run=$1 out
    if ! out=$(nginx_for "$run" -t -q 2>&1); then
        echo "$out" >&2
        die "nginx rejected $run/nginx.conf"
    fi
}

# Starts nginx from <run>/nginx.conf listening on <port>. Returns 2 when the port is taken.
launch() {
    local run=$1 port=$2 out i
    rm -f "$run/nginx.pid"
    if ! out=$(nginx_for "$run" 2>&1 </dev/null); then
        if [[ $out == *"Address already in use"* ]]; then
            return 2
        fi
        echo "$out" >&2
        die "nginx did not start (see $run/error.log)"
    fi
    # nginx daemonizes before writing its pid file; the socket is bound before that.
    for ((i = 0; i < 100; i++)); do
        if master_pid "$run" >/dev/null && [[ -n $(pgrep -P "$(master_pid "$run")" || true) ]] \
            && port_open "$port"; then
            echo "$port" >"$run/port"
            return 0
        fi
        sleep 0.05
    done
    tail -n 20 "$run/error.log" >&2 2>/dev/null || true
    cmd_stop "$run" >/dev/null 2>&1 || true
    die "nginx did not accept connections on 127.0.0.1:$port within 5 s"
}

# Whether nginx's workers, run as root, would not be able to read <root>.
needs_root_workers() {
    local root=$1
    [[ $EUID -eq 0 ]] || return 1
    command -v setpriv >/dev/null || return 0
    ! setpriv --reuid=nobody --regid=nogroup --clear-groups -- test -r "$root/." -a -x "$root/." 2>/dev/null
}

render() {
    local root=$1 run=$2 port=$3
    [[ -f $TEMPLATE ]] || die "missing $TEMPLATE"
    {
        if needs_root_workers "$root"; then
            echo "# origin.sh: nobody cannot read $root, so the workers stay root."
            echo "user root;"
        fi
        sed -e "s|@ROOT@|$root|g" -e "s|@RUN@|$run|g" -e "s|@PORT@|$port|g" "$TEMPLATE"
    } >"$run/nginx.conf.tmp"
    mv "$run/nginx.conf.tmp" "$run/nginx.conf"
}

cmd_start() {
    [[ $# -eq 2 ]] || usage
    local root run port attempt status
    root=$(realpath -m "$1")
    run=$(realpath -m "$2")
    [[ $root != *"|"* && $run != *"|"* ]] || die "paths may not contain '|'"
    mkdir -p "$run" "$root/access"
    local map
    for map in keys grants; do
        [[ -e $root/access/$map.map ]] || : >"$root/access/$map.map"
    done
    if master_pid "$run" >/dev/null; then
        die "already running for $run on port $(cat "$run/port" 2>/dev/null || echo '?')"
    fi
    echo "$root" >"$run/root"
    for ((attempt = 1; attempt <= 5; attempt++)); do
        port=$(free_port)
        render "$root" "$run" "$port"
        check_config "$run"
        status=0
        launch "$run" "$port" || status=$?
        if [[ $status -eq 0 ]]; then
            echo "$port"
            return 0
        fi
    done
    die "could not find a free port after 5 attempts"
}

cmd_reload() {
    [[ $# -eq 1 ]] || usage
    local run pid old i line wpid title fresh stale
    run=$(realpath -m "$1")
    pid=$(master_pid "$run") || die "not running for $run"
    check_config "$run"
    old=$(workers_of "$pid" | cut -d' ' -f1)
    nginx_for "$run" -s reload
    # In effect once a new worker runs and every old one is gone or has stopped accepting
    # (nginx retitles a worker "... is shutting down" as it closes its listening sockets).
    for ((i = 0; i < 100; i++)); do
        fresh=0
        stale=0
        while read -r wpid title; do
            [[ -n $wpid ]] || continue
            if grep -qx "$wpid" <<<"$old"; then
                [[ $title == *"shutting down"* ]] || stale=1
            else
                fresh=1
            fi
        done < <(workers_of "$pid")
        if [[ $fresh -eq 1 && $stale -eq 0 ]]; then
            return 0
        fi
        sleep 0.05
    done
    tail -n 20 "$run/error.log" >&2 2>/dev/null || true
    die "the new configuration did not take effect within 5 s"
}

cmd_stop() {
    [[ $# -eq 1 ]] || usage
    local run pids i pid
    run=$(realpath -m "$1")
    [[ -d $run ]] || return 0
    pids=$( (master_pid "$run" || true; instance_pids "$run") | sort -u)
    if [[ -n $pids ]]; then
        # SIGTERM is nginx's fast shutdown: workers exit at once, dropping their connections.
        # shellcheck disable=SC2086
        kill -TERM $pids 2>/dev/null || true
        for ((i = 0; i < 100; i++)); do
            # shellcheck disable=SC2086
            any_alive $pids || break
            sleep 0.05
        done
        for pid in $pids; do
            if any_alive "$pid"; then
                kill -KILL "$pid" 2>/dev/null || true
            fi
        done
        for ((i = 0; i < 40; i++)); do
            # shellcheck disable=SC2086
            any_alive $pids || break
            sleep 0.05
        done
        # shellcheck disable=SC2086
        ! any_alive $pids || die "nginx processes $pids of $run would not exit"
    fi
    rm -f "$run/nginx.pid"
}

cmd_restart() {
    [[ $# -eq 1 ]] || usage
    local run port attempt status
    run=$(realpath -m "$1")
    [[ -s $run/port && -f $run/nginx.conf ]] || die "$run has no port or nginx.conf: start it first"
    port=$(tr -dc '0-9' <"$run/port")
    cmd_stop "$run"
    check_config "$run"
    # nginx itself retries a busy port for about 2.5 s per attempt.
    for ((attempt = 1; attempt <= 4; attempt++)); do
        status=0
        launch "$run" "$port" || status=$?
        if [[ $status -eq 0 ]]; then
            echo "$port"
            return 0
        fi
        sleep 0.2
    done
    die "127.0.0.1:$port stayed busy; could not restart"
}

[[ $# -ge 1 ]] || usage
command=$1
shift
case $command in
start) cmd_start "$@" ;;
reload) cmd_reload "$@" ;;
stop) cmd_stop "$@" ;;
restart) cmd_restart "$@" ;;
-h | --help | help) usage ;;
*) usage ;;
esac
