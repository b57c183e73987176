#!/usr/bin/env bash
# docker/docker-check.sh -- `make docker-check`: the container parts of posenc, tested for real (issue 6).
#
#  1. k8s: docker/k8s/*.yaml validated offline (docker/k8s-validate, kubernetes-models 5.1.0).
#  2. Installs docker.io, debootstrap, docker-compose when missing (apt-get, as root).
#  3. Uses the Docker daemon that answers (DOCKER_HOST or the default socket); when none does, starts
#     a private dockerd (--bridge=none --iptables=false --ip6tables=false, own data root, exec root
#     and socket) and stops it afterwards by its PID. Where dockerd cannot start, says so and the
#     Docker checks are reported SKIPPED (not passed); the script then exits 0.
#  4. Base image: debian:bookworm-slim when present or pullable, else local/bookworm-minbase made
#     with `debootstrap --variant=minbase bookworm` + `docker import` (the tarball and the image are
#     cached in $POSENC_DC_STATE between runs).
#  5. Builds docker/Dockerfile (--network host), runs it with --network host on a free loopback port,
#     read-only root filesystem and no capabilities (as the Kubernetes manifest does): start-to-ready
#     time, /healthz, /version (git_revision = the GIT_REV build argument), one /rope oracle case, HEALTHCHECK status healthy, uid 10001, JSON logs.
#  6. Drain: `docker stop` (SIGTERM) during a keep-alive load run (docker/loadcheck.py); requests
#     without a complete response must be 0, exit code 0.
#  7. Compose: docker/compose.yaml (3 replicas + nginx, host networking) -- shared data volume, then
#     one replica killed (docker kill) and one stopped (SIGTERM) during load runs through nginx;
#     the client must see only 2xx responses. No Docker network may be created. nginx's body limits
#     (docker/nginx-check.py): equal to GET /limits, its own 413 as problem+json, and a 200 MB
#     .safetensors table upload through nginx read back through another replica.
# Prints image size, start-to-ready time, drain counts and the failover count, and ends with
# "docker-check: N passed, M failed[, K skipped]". Exit 1 when a check failed.
# Environment: POSENC_DC_STATE (default /var/lib/posenc-docker-check), POSENC_BASE (base image to
# use instead of the search above), POSENC_DC_KEEP=1 (keep the work dir).
# Test traffic stays on 127.0.0.1 (host networking only; no bridge network is ever created).
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
T_START=$(date +%s)
STATE=${POSENC_DC_STATE:-/var/lib/posenc-docker-check}
RUNDIR=/run/posenc-dc
IMAGE=local/posenc:check
MINBASE=local/bookworm-minbase:latest
NGINX_IMAGE=local/nginx:check
SINGLE=posenc-dc-single
PROJECT=posencdc
ORACLE_FILE=tests/vectors/rope/rotation.json
ORACLE_ID=rope-rot-default-hd8-half
LOAD_CASE=(--case "$ORACLE_FILE" "$ORACLE_ID")
export DOCKER_BUILDKIT=0 # no buildx on Debian 12: the classic builder, without the fallback notice
export COMPOSE_DOCKER_CLI_BUILD=0

PASSED=0
FAILED=0
SKIPPED=0
FAILS=()
FIG=() # figures printed at the end
WORK=$(mktemp -d /tmp/posenc-dc.XXXXXX)
DOCKERD_PID=""
COMPOSE_UP=0

log() { printf 'docker-check: %s\n' "$*"; }
pass() { PASSED=$((PASSED + 1)); printf 'docker-check: PASS %s\n' "$*"; }
fail() { FAILED=$((FAILED + 1)); FAILS+=("$*"); printf 'docker-check: FAIL %s\n' "$*"; }
skip() { SKIPPED=$((SKIPPED + 1)); printf 'docker-check: SKIP %s\n' "$*"; }
fig() { FIG+=("$*"); printf 'docker-check: %s\n' "$*"; }
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get(sys.argv[2], ""))' "$@"; }
now() { date +%s.%N; }
ms_since() { python3 -c 'import sys,time; print(int(round((time.time()-float(sys.argv[1]))*1000)))' "$1"; }

# The Docker checks that did not run when Docker is unavailable (keeps the summary honest).
DOCKER_CHECKS=(image-build single-run oracle healthcheck non-root json-logs cpu-quota image-cli drain compose-up
               shared-data nginx-limits nginx-413-json nginx-413-tables nginx-big-upload
               no-networks failover-kill failover-stop)

finish() {
    local rc=0
    [ "$FAILED" -eq 0 ] || rc=1
    cleanup
    log "---- figures ----"
    for f in "${FIG[@]}"; do log "$f"; done
    log "total time $(($(date +%s) - T_START)) s"
    for f in "${FAILS[@]}"; do log "failed: $f"; done
    [ -n "${SKIP_REASON:-}" ] && log "Docker checks SKIPPED, not passed: $SKIP_REASON"
    if [ "$SKIPPED" -gt 0 ]; then
        log "$PASSED passed, $FAILED failed, $SKIPPED skipped"
    else
        log "$PASSED passed, $FAILED failed"
    fi
    exit "$rc"
}

cleanup() {
    [ -n "${CLEANED:-}" ] && return 0
    CLEANED=1
    set +e
    if [ -n "${DOCKER_OK:-}" ]; then
        docker rm -f -v "$SINGLE" "$SINGLE-quota" >/dev/null 2>&1
        if [ "$COMPOSE_UP" = 1 ]; then
            compose down -v -t 15 >>"$WORK/compose.log" 2>&1
        fi
    fi
    if [ -n "$DOCKERD_PID" ]; then
        kill -TERM "$DOCKERD_PID" 2>/dev/null
        for _ in $(seq 100); do kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 0.2; done
        if kill -0 "$DOCKERD_PID" 2>/dev/null; then
            log "dockerd (pid $DOCKERD_PID) did not stop in 20 s: SIGKILL"
            kill -KILL "$DOCKERD_PID" 2>/dev/null
        fi
        log "private dockerd (pid $DOCKERD_PID) stopped"
    fi
    if [ "${POSENC_DC_KEEP:-0}" = 1 ]; then log "work dir kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
port_free() {
    python3 -c 'import socket,sys; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1",int(sys.argv[1])))' "$1" 2>/dev/null
}

# ---------------------------------------------------------------------------------------------
# 1. Kubernetes manifests (no Docker needed).
k8s_check() {
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
        if [ "$(id -u)" = 0 ]; then
            log "installing nodejs npm (for the k8s validation)"
            (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm) \
                >"$WORK/apt-node.log" 2>&1 || tail -5 "$WORK/apt-node.log"
        fi
    fi
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
        fail "k8s: node/npm not available (apt-get install nodejs npm)"
        return
    fi
    local out=$WORK/k8s.log
    # npm ci only when node_modules does not already hold exactly what package-lock.json pins.
    if ! (cd docker/k8s-validate && node -e '
        const fs = require("fs");
        const lock = JSON.parse(fs.readFileSync("package-lock.json")).packages;
        for (const [p, v] of Object.entries(lock)) {
            if (!p) continue;
            const got = JSON.parse(fs.readFileSync(p + "/package.json")).version;
            if (got !== v.version) process.exit(1);
        }' 2>/dev/null) &&
        ! (cd docker/k8s-validate &&
        timeout 180 npm ci --no-audit --no-fund --ignore-scripts --loglevel=error) >"$out" 2>&1; then
        tail -20 "$out"
        fail "k8s: npm ci in docker/k8s-validate"
        return
    fi
    if (cd docker/k8s-validate && timeout 60 node validate.mjs) >"$out" 2>&1; then
        sed 's/^/  /' "$out"
        pass "k8s manifests valid (node $(node --version), kubernetes-models 5.1.0)"
    else
        sed 's/^/  /' "$out"
        fail "k8s manifests (docker/k8s-validate/validate.mjs)"
    fi
}

# ---------------------------------------------------------------------------------------------
# 2. Packages.
install_packages() {
    local missing=()
    command -v dockerd >/dev/null || missing+=(docker.io)
    command -v debootstrap >/dev/null || missing+=(debootstrap)
    command -v docker-compose >/dev/null || missing+=(docker-compose)
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" != 0 ]; then
        log "missing ${missing[*]} and not root: run sudo apt-get install -y ${missing[*]}"
        return 1
    fi
    log "installing ${missing[*]}"
    if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") \
        >"$WORK/apt.log" 2>&1; then
        tail -10 "$WORK/apt.log"
        return 1
    fi
}

# ---------------------------------------------------------------------------------------------
# 3. Docker daemon.
start_docker() {
    if ! command -v docker >/dev/null; then
        SKIP_REASON="no docker client"
        return 1
    fi
    if timeout 10 docker info >/dev/null 2>&1; then
        log "using the running Docker daemon (${DOCKER_HOST:-default socket})"
        return 0
    fi
    if [ "$(id -u)" != 0 ] || ! command -v dockerd >/dev/null; then
        SKIP_REASON="no Docker daemon answers and dockerd cannot be started here (not root or not installed)"
        return 1
    fi
    mkdir -p "$STATE/docker" "$RUNDIR"
    # A dockerd left by an interrupted earlier run of this script: stop it by its PID.
    if [ -f "$RUNDIR/dockerd.pid" ]; then
        local old
        old=$(cat "$RUNDIR/dockerd.pid" 2>/dev/null)
        if [ -n "$old" ] && [ "$(cat "/proc/$old/comm" 2>/dev/null)" = dockerd ]; then
            log "stopping a dockerd left by an earlier run (pid $old)"
            kill -TERM "$old"
            for _ in $(seq 100); do kill -0 "$old" 2>/dev/null || break; sleep 0.2; done
        fi
        rm -f "$RUNDIR/dockerd.pid"
    fi
    export DOCKER_HOST="unix://$RUNDIR/docker.sock"
    dockerd --data-root "$STATE/docker" --exec-root "$RUNDIR/exec" -H "$DOCKER_HOST" \
        --pidfile "$RUNDIR/dockerd.pid" --bridge=none --iptables=false --ip6tables=false \
        >"$WORK/dockerd.log" 2>&1 &
    DOCKERD_PID=$!
    for _ in $(seq 150); do
        if ! kill -0 "$DOCKERD_PID" 2>/dev/null; then break; fi
        if timeout 5 docker info >/dev/null 2>&1; then
            log "private dockerd started (pid $DOCKERD_PID, $(docker version -f '{{.Server.Version}}' 2>/dev/null), data root $STATE/docker, --bridge=none)"
            return 0
        fi
        sleep 0.2
    done
    log "dockerd could not start; its log ends with:"
    tail -15 "$WORK/dockerd.log" | sed 's/^/  /'
    kill -TERM "$DOCKERD_PID" 2>/dev/null
    wait "$DOCKERD_PID" 2>/dev/null
    DOCKERD_PID=""
    SKIP_REASON="dockerd could not start on this machine"
    return 1
}

# ---------------------------------------------------------------------------------------------
# 4. Base image.
debian_mirror() {
    local m
    m=$(grep -hsE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
        sed -E 's/\[[^]]*\]//' | awk '$3 == "bookworm" { print $2; exit }')
    if [ -z "$m" ]; then
        m=$(awk 'BEGIN { RS = ""; FS = "\n" }
            { u = ""; s = 0; t = 0
              for (i = 1; i <= NF; i++) {
                if ($i ~ /^URIs:/) { v = $i; sub(/^URIs:[ \t]*/, "", v); split(v, a, /[ \t]+/); u = a[1] }
                if ($i ~ /^Suites:/ && $i ~ /[ \t]bookworm([ \t]|$)/) s = 1
                if ($i ~ /^Types:/ && $i ~ /[ \t]deb([ \t]|$)/) t = 1 }
              if (u != "" && s && t) { print u; exit } }' /etc/apt/sources.list.d/*.sources 2>/dev/null)
    fi
    echo "${m:-http://deb.debian.org/debian}"
}

make_minbase() {
    local tar=$STATE/bookworm-minbase.tar
    if [ ! -s "$tar" ]; then
        local mirror rootfs=$WORK/rootfs t0
        mirror=$(debian_mirror)
        log "debootstrap --variant=minbase bookworm from $mirror (first run only, ~30 s)"
        t0=$(now)
        if ! timeout 600 debootstrap --variant=minbase bookworm "$rootfs" "$mirror" \
            >"$WORK/debootstrap.log" 2>&1; then
            tail -10 "$WORK/debootstrap.log"
            return 1
        fi
        # Slim it the way the official -slim images are: no docs, man pages, locales, apt caches.
        rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin \
            "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* \
            "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/*
        mkdir -p "$rootfs/etc/dpkg/dpkg.cfg.d" "$rootfs/etc/apt/apt.conf.d"
        printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
            'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' \
            'path-exclude /usr/share/locale/*' >"$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim"
        printf '%s\n' 'APT::Install-Recommends "false";' 'Acquire::Languages "none";' \
            'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };' \
            >"$rootfs/etc/apt/apt.conf.d/docker-slim"
        mkdir -p "$STATE"
        tar -C "$rootfs" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar" || return 1
        rm -rf "$rootfs"
        log "base rootfs cached in $tar ($(du -m "$tar" | cut -f1) MB, $(ms_since "$t0") ms)"
    fi
    docker import "$tar" "$MINBASE" >/dev/null || return 1
    log "imported $MINBASE from $tar"
}

pick_base() {
    if [ -n "${POSENC_BASE:-}" ]; then BASE=$POSENC_BASE; return 0; fi
    if docker image inspect debian:bookworm-slim >/dev/null 2>&1; then BASE=debian:bookworm-slim; return 0; fi
    if docker image inspect "$MINBASE" >/dev/null 2>&1; then BASE=$MINBASE; return 0; fi
    if timeout 60 docker pull debian:bookworm-slim >"$WORK/pull.log" 2>&1; then
        BASE=debian:bookworm-slim
        return 0
    fi
    log "debian:bookworm-slim cannot be pulled ($(tail -1 "$WORK/pull.log" | cut -c1-120))"
    make_minbase || return 1
    BASE=$MINBASE
}

# ---------------------------------------------------------------------------------------------
# 5. Image and single container.
build_images() {
    local t0 rc
    REV=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    t0=$(now)
    timeout 600 docker build --network host --build-arg BASE="$BASE" --build-arg GIT_REV="$REV" \
        -f docker/Dockerfile -t "$IMAGE" . >"$WORK/build.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        tail -30 "$WORK/build.log" | sed 's/^/  /'
        fail "image build (docker build -f docker/Dockerfile, base $BASE)"
        return 1
    fi
    local bytes
    bytes=$(docker image inspect -f '{{.Size}}' "$IMAGE")
    IMAGE_MB=$(python3 -c "print(f'{$bytes/1e6:.1f}')")
    pass "image build ($IMAGE from $BASE, $(ms_since "$t0") ms)"
    # Our own daemon's data root is kept between runs (build cache): drop superseded posenc images.
    [ -n "$DOCKERD_PID" ] &&
        docker image prune -f --filter label=org.opencontainers.image.title=posenc >/dev/null 2>&1
    fig "image size: $IMAGE_MB MB ($IMAGE, base $BASE)"
    # nginx for the compose test: the official image when present, else Debian's nginx on BASE
    # (docker/nginx.Dockerfile).
    if docker image inspect nginx:1.27-bookworm >/dev/null 2>&1; then
        NGINX_IMAGE=nginx:1.27-bookworm
    else
        if ! timeout 300 docker build --network host --build-arg BASE="$BASE" -t "$NGINX_IMAGE" \
            - <docker/nginx.Dockerfile >"$WORK/nginx-build.log" 2>&1; then
            tail -20 "$WORK/nginx-build.log" | sed 's/^/  /'
            return 2
        fi
    fi
}

single_checks() {
    local port t0 ms out
    port=$(free_port)
    t0=$(now)
    # As the Kubernetes Deployment runs it: read-only root filesystem, no capabilities, no privilege
    # escalation; the data directory is the image's VOLUME.
    if ! docker run -d --name "$SINGLE" --network host --stop-timeout 30 \
        --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges:true \
        -e POSENC_BIND=127.0.0.1 -e POSENC_PORT="$port" "$IMAGE" >/dev/null 2>"$WORK/run.err"; then
        cat "$WORK/run.err"
        fail "single-run: docker run $IMAGE"
        return 1
    fi
    if ! ms=$(python3 docker/loadcheck.py wait "http://127.0.0.1:$port/readyz" --timeout 30 --since "$t0"); then
        docker logs "$SINGLE" 2>&1 | tail -20
        fail "single-run: /readyz not 200 within 30 s"
        return 1
    fi
    fig "start-to-ready: $ms ms (docker run to the first 200 from /readyz, port $port)"
    if python3 docker/loadcheck.py wait "http://127.0.0.1:$port/healthz" --timeout 5 >/dev/null &&
        out=$(python3 -c 'import json,sys,urllib.request as u; d=json.load(u.urlopen(sys.argv[1], timeout=5)); print(json.dumps(d)[:300]); sys.exit(d.get("git_revision") != sys.argv[2])' "http://127.0.0.1:$port/version" "$REV"); then
        pass "single-run (read-only root, cap-drop ALL): /healthz 200, /version $out"
    else
        fail "single-run: /healthz, or /version without git_revision $REV: $out"
    fi
    if out=$(timeout 60 python3 tests/oracle-run "http://127.0.0.1:$port" "$ORACLE_FILE" --only "$ORACLE_ID" 2>&1) &&
        grep -q '^1 passed, 0 failed' <<<"$out"; then
        pass "oracle: /rope case $ORACLE_ID in the container"
    else
        sed 's/^/  /' <<<"$out" | tail -15
        fail "oracle: /rope case $ORACLE_ID in the container"
    fi
    local st=""
    t0=$(now)
    for _ in $(seq 150); do
        st=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{end}}' "$SINGLE" 2>/dev/null)
        [ "$st" = healthy ] || [ "$st" = unhealthy ] && break
        sleep 0.2
    done
    if [ "$st" = healthy ]; then
        pass "healthcheck: HEALTHCHECK (posencd --healthcheck) reports healthy"
    else
        docker inspect -f '{{json .State.Health}}' "$SINGLE" 2>&1 | cut -c1-600
        fail "healthcheck: status '$st', not healthy within 30 s"
    fi
    local user uid
    user=$(docker inspect -f '{{.Config.User}}' "$SINGLE")
    uid=$(docker top "$SINGLE" -o pid,uid,comm 2>/dev/null | awk '$3 == "posencd" { print $2 }')
    if [ "$user" = "10001:10001" ] && [ "$uid" = 10001 ]; then
        pass "non-root: image user $user, posencd runs as uid $uid"
    else
        fail "non-root: image user '$user', process uid '$uid' (want 10001)"
    fi
    if docker logs "$SINGLE" 2>/dev/null | python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    try:
        d = json.loads(line)
    except ValueError:
        continue
    n += isinstance(d, dict) and "status" in d and "path" in d
sys.exit(0 if n else 1)'; then
        pass "json-logs: the access log on stdout is JSON lines (POSENC_LOG_FORMAT=json)"
    else
        docker logs "$SINGLE" 2>&1 | tail -5
        fail "json-logs: no JSON access-log line in docker logs"
    fi
    SINGLE_PORT=$port
}

# `docker run --cpus 1`: posencd sizes its threads from the cgroup CPU quota (it logs the count);
# the image's CLI (posenc) answers exactly as the daemon in it.
quota_cli_check() {
    local name=$SINGLE-quota port msg body want got
    port=$(free_port)
    docker run -d --name "$name" --network host --cpus 1 -e POSENC_BIND=127.0.0.1 \
        -e POSENC_PORT="$port" "$IMAGE" >/dev/null 2>&1 &&
        python3 docker/loadcheck.py wait "http://127.0.0.1:$port/readyz" --timeout 30 >/dev/null
    msg=$(docker logs "$name" 2>&1 | grep -m1 'CPU quota')
    if [ "$(nproc)" -lt 2 ]; then
        skip "cpu-quota: one CPU here, a quota of 1 cannot lower it"
    elif grep -q 'allows 1 of' <<<"$msg"; then
        pass "cpu-quota: docker run --cpus 1 on $(nproc) CPUs: \"$msg\""
    else
        fail "cpu-quota: no 'allows 1 of' line in the log of docker run --cpus 1 ('$msg')"
    fi
    body='{"head_dim":8,"positions":[0,1,5],"include":["cos_sin"],"q":[1,2,3,4,5,6,7,8]}'
    want=$(python3 -c 'import sys,urllib.request as u; sys.stdout.buffer.write(u.urlopen(u.Request(sys.argv[1], data=sys.argv[2].encode(), headers={"Content-Type": "application/json"}), timeout=10).read())' "http://127.0.0.1:$port/rope" "$body" | sha256sum)
    got=$(printf '%s' "$body" | docker exec -i "$name" posenc rope | sha256sum)
    if [ "$want" = "$got" ] && [ "$want" != "$(printf '' | sha256sum)" ]; then
        pass "image-cli: posenc rope in the image prints the daemon's body byte for byte"
    else
        fail "image-cli: posenc rope in the image differs from POST /rope ($got vs $want)"
    fi
    docker rm -f -v "$name" >/dev/null 2>&1
}

drain_check() {
    local port=$SINGLE_PORT t0 stop_ms code res=$WORK/drain.json
    python3 docker/loadcheck.py load "127.0.0.1:$port" --path /rope "${LOAD_CASE[@]}" \
        --threads 8 --duration 5 >"$res" 2>"$WORK/drain.err" &
    local lp=$!
    sleep 2
    t0=$(now)
    docker stop -t 30 "$SINGLE" >/dev/null
    stop_ms=$(ms_since "$t0")
    wait "$lp"
    code=$(docker inspect -f '{{.State.ExitCode}}' "$SINGLE")
    if [ ! -s "$res" ]; then
        cat "$WORK/drain.err"
        fail "drain: the load client printed nothing"
        return
    fi
    local ok s503 other inc refused detail closes
    ok=$(jget "$res" ok); s503=$(jget "$res" s503); other=$(jget "$res" other)
    inc=$(jget "$res" incomplete); refused=$(jget "$res" refused)
    detail=$(jget "$res" incomplete_detail); closes=$(jget "$res" conn_close)
    fig "drain (docker stop during 8-thread keep-alive POST /rope load): ${ok} complete 2xx, ${s503} x 503 shutting-down, ${other} other, ${inc} without a complete response ${detail}, ${closes} responses with Connection: close, ${refused} new connections refused after shutdown; stop took ${stop_ms} ms, exit code $code"
    if docker logs "$SINGLE" 2>&1 | grep -q 'draining'; then :; else
        log "note: the container log has no 'draining' line"
    fi
    if [ "$inc" = 0 ] && [ "$other" = 0 ] && [ "$ok" -gt 0 ] && [ "$code" = 0 ] &&
        [ "$closes" -gt 0 ] && [ "$stop_ms" -lt 11000 ]; then
        pass "drain: SIGTERM under keep-alive load: 0 requests without a complete response, Connection: close sent, exit 0 in $stop_ms ms"
    else
        fail "drain: ${inc} requests without a complete response ${detail}, ${other} unexpected statuses, exit code $code, ${closes} Connection: close, stop ${stop_ms} ms (want 0, 0, 0, > 0, < 11000)"
    fi
    docker rm -v "$SINGLE" >/dev/null 2>&1
}

# ---------------------------------------------------------------------------------------------
# 7. Compose: 3 replicas behind nginx.
compose() {
    POSENC_IMAGE=$IMAGE NGINX_IMAGE=$NGINX_IMAGE POSENC_DATA_HOST=$WORK/data NGINX_CONF=$NGINX_CONF \
        LB_PORT=$LB_PORT REPLICA1_PORT=${RPORTS[0]} REPLICA2_PORT=${RPORTS[1]} \
        REPLICA3_PORT=${RPORTS[2]} timeout 180 docker-compose -p "$PROJECT" -f docker/compose.yaml "$@"
}

# The compose file's ports (18080 nginx, 18081-18083 replicas) when free, else free ones, with a
# copy of docker/nginx.conf naming them.
compose_ports() {
    LB_PORT=18080
    RPORTS=(18081 18082 18083)
    NGINX_CONF=$ROOT/docker/nginx.conf
    local p busy=""
    for p in "$LB_PORT" "${RPORTS[@]}"; do port_free "$p" || busy="$busy $p"; done
    [ -z "$busy" ] && return 0
    LB_PORT=$(free_port)
    RPORTS=("$(free_port)" "$(free_port)" "$(free_port)")
    while [ "$(printf '%s\n' "$LB_PORT" "${RPORTS[@]}" | sort -u | wc -l)" -ne 4 ]; do
        RPORTS=("$(free_port)" "$(free_port)" "$(free_port)")
    done
    NGINX_CONF=$WORK/nginx.conf
    sed -e "s/127\.0\.0\.1:18080/127.0.0.1:$LB_PORT/" -e "s/127\.0\.0\.1:18081/127.0.0.1:${RPORTS[0]}/" \
        -e "s/127\.0\.0\.1:18082/127.0.0.1:${RPORTS[1]}/" -e "s/127\.0\.0\.1:18083/127.0.0.1:${RPORTS[2]}/" \
        docker/nginx.conf >"$NGINX_CONF"
    log "ports$busy in use on this machine: compose on nginx $LB_PORT, replicas ${RPORTS[*]} (edited copy of nginx.conf)"
}

compose_checks() {
    local p
    compose_ports
    mkdir -p "$WORK/data"
    chown 10001:10001 "$WORK/data"
    local t0 ms
    t0=$(now)
    COMPOSE_UP=1
    if ! compose up -d --no-build >"$WORK/compose.log" 2>&1; then
        tail -20 "$WORK/compose.log" | sed 's/^/  /'
        compose logs --tail 20 2>&1 | tail -40 | sed 's/^/  /'
        fail "compose-up: docker-compose up (3 replicas + nginx)"
        return 1
    fi
    if ! ms=$(python3 docker/loadcheck.py wait "http://127.0.0.1:$LB_PORT/readyz" --timeout 60 --since "$t0"); then
        compose logs --tail 20 2>&1 | tail -40 | sed 's/^/  /'
        fail "compose-up: nginx 127.0.0.1:$LB_PORT/readyz not 200 within 60 s"
        return 1
    fi
    local bad=0
    for p in "${RPORTS[@]}"; do
        python3 docker/loadcheck.py wait "http://127.0.0.1:$p/readyz" --timeout 5 >/dev/null || bad=1
    done
    local nst="" ncid
    ncid=$(compose ps -q nginx | head -1)
    for _ in $(seq 50); do
        nst=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{end}}' "$ncid" 2>/dev/null)
        [ "$nst" = healthy ] && break
        sleep 0.2
    done
    [ "$nst" = healthy ] || { log "nginx health status: '$nst'"; bad=1; }
    if [ $bad = 0 ]; then
        pass "compose-up: 3 replicas (127.0.0.1:${RPORTS[*]}) + nginx (127.0.0.1:$LB_PORT) healthy, up in $ms ms"
    else
        fail "compose-up: a replica is not ready"
    fi
    # Host networking only: compose must not have created any network.
    local nets modes
    nets=$(docker network ls --format '{{.Name}}' | grep -vxE 'host|none|bridge' | tr '\n' ' ')
    modes=$(docker ps --filter "label=com.docker.compose.project=$PROJECT" --format '{{.Names}}' |
        xargs -r docker inspect -f '{{.HostConfig.NetworkMode}}' | sort -u | tr '\n' ' ')
    if [ -z "$nets" ] && [ "$modes" = "host " ]; then
        pass "no-networks: no Docker network created, every container on the host network"
    else
        fail "no-networks: networks '$nets', network modes '$modes'"
    fi
    shared_data_check
    nginx_checks
    failover_run kill posenc2
    failover_run stop posenc1
}

# A table stored through replica 1 is read through replica 3 (shared bind-mounted data dir).
shared_data_check() {
    local out
    out=$(python3 - "${RPORTS[@]}" <<'EOF'
import json, sys, urllib.request, urllib.error
p1, p2, p3 = sys.argv[1:4]
def req(method, url, body=None):
    r = urllib.request.Request(url, method=method, data=body,
                               headers={"Content-Type": "application/json"} if body else {})
    try:
        with urllib.request.urlopen(r, timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
name = "dc-shared-check"
st, _ = req("PUT", f"http://127.0.0.1:{p1}/tables/{name}",
            json.dumps({"data": [[0.0, 1.0], [0.5, 0.25], [1.0, -1.0]]}).encode())
if st in (404, 405, 501):
    print(f"SKIP PUT /tables answered {st}")
    raise SystemExit
st2, body = req("GET", f"http://127.0.0.1:{p3}/tables/{name}")
st3, _ = req("DELETE", f"http://127.0.0.1:{p2}/tables/{name}")
print(("OK" if st in (200, 201) and st2 == 200 else "BAD") +
      f" PUT via replica 1 -> {st}, GET via replica 3 -> {st2} {body[:100]!r}, DELETE via replica 2 -> {st3}")
EOF
)
    case "$out" in
    OK*) pass "shared-data: ${out#OK }" ;;
    SKIP*) skip "shared-data: ${out#SKIP } (tables API not in this build)" ;;
    *) fail "shared-data: $out" ;;
    esac
}

# nginx's body limits, its own 413 as problem+json, a 200 MB upload (docker/nginx-check.py).
nginx_checks() {
    local line
    while IFS= read -r line; do
        case "$line" in
        PASS\ *) pass "nginx-${line#PASS }" ;;
        FAIL\ *) fail "nginx-${line#FAIL }" ;;
        *) log "  $line" ;;
        esac
    done < <(timeout 300 python3 docker/nginx-check.py "$NGINX_CONF" "$LB_PORT" "${RPORTS[@]}" 2>&1)
}

# Load through nginx; after 2.5 s `docker kill` (or `docker stop`) one replica.
failover_run() {
    local how=$1 svc=$2
    local cid res=$WORK/failover-$1.json since
    cid=$(compose ps -q "$svc" 2>/dev/null | head -1)
    if [ -z "$cid" ]; then
        fail "failover-$how: no container for $svc"
        return
    fi
    since=$(date -u +%Y-%m-%dT%H:%M:%S)
    python3 docker/loadcheck.py load "127.0.0.1:$LB_PORT" --path /rope "${LOAD_CASE[@]}" \
        --threads 8 --duration 6 >"$res" 2>"$WORK/failover.err" &
    local lp=$!
    sleep 2.5
    if [ "$how" = kill ]; then docker kill "$cid" >/dev/null; else docker stop -t 30 "$cid" >/dev/null; fi
    wait "$lp"
    if [ ! -s "$res" ]; then
        cat "$WORK/failover.err"
        fail "failover-$how: the load client printed nothing"
        return
    fi
    local ok s503 other inc refused retried nginx_cid
    ok=$(jget "$res" ok); s503=$(jget "$res" s503); other=$(jget "$res" other)
    inc=$(jget "$res" incomplete); refused=$(jget "$res" refused)
    nginx_cid=$(compose ps -q nginx | head -1)
    # nginx logs upstream="a, b" when a request was retried on the next replica.
    retried=$(docker logs --since "$since" "$nginx_cid" 2>/dev/null | grep -c 'upstream="[^"]*, ')
    local non2xx=$((s503 + other + inc + refused)) what after
    if [ "$how" = kill ]; then what="killed (SIGKILL)"; else what="stopped (SIGTERM, drain)"; fi
    after=$(docker inspect -f 'restarts {{.RestartCount}}, running {{.State.Running}}' "$cid" 2>/dev/null)
    fig "failover ($svc $what during 8-thread keep-alive POST /rope load through nginx): ${ok} x 2xx, ${non2xx} non-2xx or failed (503 ${s503}, other ${other}, incomplete ${inc}, refused ${refused}); failover count ${retried} (requests nginx retried on another replica); $svc afterwards: $after"
    if [ "$non2xx" = 0 ] && [ "$ok" -gt 0 ]; then
        pass "failover-$how: $svc $what under load: 0 non-2xx responses through nginx (${retried} retried)"
    else
        fail "failover-$how: ${non2xx} non-2xx or failed requests through nginx"
    fi
}

# ---------------------------------------------------------------------------------------------
log "posenc container checks (host networking, loopback only)"
k8s_check

docker_skip() {
    log "Docker unavailable: ${SKIP_REASON}"
    for c in "${DOCKER_CHECKS[@]}"; do skip "$c"; done
    finish
}

install_packages || { SKIP_REASON="docker.io/debootstrap/docker-compose could not be installed"; docker_skip; }
start_docker || docker_skip
DOCKER_OK=1
# Containers left by an interrupted earlier run (their restart policy would bring them back).
docker rm -f -v "$SINGLE" >/dev/null 2>&1
docker ps -aq --filter "label=com.docker.compose.project=$PROJECT" | xargs -r docker rm -f -v >/dev/null 2>&1
if ! pick_base; then
    fail "base image: neither debian:bookworm-slim nor a debootstrap base could be made"
    finish
fi
log "base image: $BASE"
build_images
case $? in
1) finish ;;
2) fail "nginx stand-in image build"; finish ;;
esac
if single_checks; then quota_cli_check; drain_check; fi
compose_checks
finish
