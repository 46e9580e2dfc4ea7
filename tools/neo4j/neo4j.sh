#!/usr/bin/env bash
# Embedded Neo4j Community (Bolt only, no auth) for brain's development and CI -- no Docker.
#
#   tools/neo4j/neo4j.sh start [--port N] [--for-tests] [--cds] [--keep-plans]
#                                           build if needed, start, print the bolt URI (last stdout line);
#                                           --for-tests: tuned for a short-lived test server (below);
#                                           --cds: classes from a class-data archive (--for-tests does it);
#                                           --keep-plans: no replanning of cached queries (--for-tests
#                                           does it; Launcher.java keepPlans)
#   tools/neo4j/neo4j.sh stop               SIGTERM (SIGKILL after a timeout); exit 0 if nothing ran
#   tools/neo4j/neo4j.sh status             print the URI and exit 0 if running, else exit 1
#   tools/neo4j/neo4j.sh uri                print the URI of the running server (exit 1 if none)
#   tools/neo4j/neo4j.sh build              only build (compile + resolve the classpath)
#   tools/neo4j/neo4j.sh log                print the server log
#
# CI:  BRAIN_TEST_NEO4J_URI=$(tools/neo4j/neo4j.sh start); trap 'tools/neo4j/neo4j.sh stop' EXIT
#
# Environment:
#   BRAIN_NEO4J_STATE          state dir: pid, uri, log, data (default /tmp/brain-neo4j)
#   BRAIN_NEO4J_HEAP           JVM max heap (default 1g)
#   BRAIN_NEO4J_PAGECACHE      Neo4j page cache (default 256m)
#   BRAIN_NEO4J_START_TIMEOUT  seconds to wait for Bolt (default 120)
#   BRAIN_NEO4J_STOP_TIMEOUT   seconds to wait after SIGTERM before SIGKILL (default 30)
#   BRAIN_NEO4J_LOG_LEVEL      Neo4j user log level: DEBUG|INFO|WARN|ERROR (default WARN)
#   BRAIN_NEO4J_JAVA_OPTS      extra JVM options (word-split)
#   BRAIN_NEO4J_FOR_TESTS      1: same as start --for-tests
#   BRAIN_NEO4J_CDS            1: same as start --cds
#   BRAIN_NEO4J_KEEP_PLANS     1: same as start --keep-plans
#   BRAIN_NEO4J_MVN_OPTS       extra Maven options (word-split), e.g. -Dmaven.repo.local=...
#   BRAIN_NEO4J_CDS_DIR        --cds: where the class-data archives are kept
#                              (default ${BRAIN_CI_CACHE:-~/.cache/brain-ci}/neo4j-cds); "off": none
#   PYTHON                     interpreter with the `neo4j` driver (default <repo>/.venv/bin/python)
#   JAVA_HOME / JAVA           Java 17+ to use (default: java on PATH)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HERE/../.." && pwd)"
TARGET="$HERE/target"
STATE="${BRAIN_NEO4J_STATE:-/tmp/brain-neo4j}"
mkdir -p "$STATE"
STATE="$(cd "$STATE" && pwd -P)"
PYTHON="${PYTHON:-$REPO_ROOT/.venv/bin/python}"
HEAP="${BRAIN_NEO4J_HEAP:-1g}"
PAGECACHE="${BRAIN_NEO4J_PAGECACHE:-256m}"
START_TIMEOUT="${BRAIN_NEO4J_START_TIMEOUT:-120}"
STOP_TIMEOUT="${BRAIN_NEO4J_STOP_TIMEOUT:-30}"
LOG_LEVEL="${BRAIN_NEO4J_LOG_LEVEL:-WARN}"
if [[ -n "${JAVA:-}" ]]; then :
elif [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then JAVA="$JAVA_HOME/bin/java"
else JAVA=java
fi

MAIN_CLASS=brain.tools.neo4j.Launcher
PID_FILE="$STATE/neo4j.pid"
URI_FILE="$STATE/neo4j.uri"
LOG_FILE="$STATE/neo4j.log"
DATA_FILE="$STATE/neo4j.data"      # path of the current data dir (inside $STATE)
CP_FILE="$TARGET/classpath.txt"
STAMP_FILE="$TARGET/build.stamp"
CDS_DIR="${BRAIN_NEO4J_CDS_DIR:-${BRAIN_CI_CACHE:-$HOME/.cache/brain-ci}/neo4j-cds}"
CDS_PENDING="$STATE/neo4j.cds"     # "<archive being written> <its final name>" while one is

# JVM flags: Neo4j 5.26's own server defaults (neo4j.conf server.jvm.additional), minus the
# ones that only matter for big production heaps (AlwaysPreTouch), plus a modest heap.
JVM_OPTS=(
  "-Xmx$HEAP"
  -XX:-OmitStackTraceInFastThrow
  -XX:+UnlockExperimentalVMOptions
  -XX:+TrustFinalNonStaticFields
  -XX:+DisableExplicitGC
  -XX:+ExitOnOutOfMemoryError
  -Djdk.nio.maxCachedBufferSize=1024
  -Dio.netty.tryReflectionSetAccessible=true
  -Djdk.tls.ephemeralDHKeySize=2048
  -Djdk.tls.rejectClientInitiatedRenegotiation=true
  -XX:FlightRecorderOptions=stackdepth=256
  -XX:+UnlockDiagnosticVMOptions
  -XX:+DebugNonSafepoints
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --enable-native-access=ALL-UNNAMED
  -Dlog4j2.disable.jmx=true
  -Dlog4j.layout.jsonTemplate.maxStringLength=32768
  -Dfile.encoding=UTF-8
)

# A test server (start --for-tests, what scripts/test starts) lives minutes, answers small
# graphs, and its JIT and GC threads take the cores the tests need: the client tier of the JIT
# only (C2's compilations of the Cypher planner and the kernel cost more CPU than a run of the
# suite gains from them) and the serial collector (no concurrent marking or refinement threads
# on a 1 GB heap). The Launcher's --for-tests turns off background work no test reads
# (Launcher.java). An operator's server keeps Neo4j's own defaults (G1, tiered JIT).
SERVER_GC_OPTS=(-XX:+UseG1GC)
TEST_JVM_OPTS=(-XX:+UseSerialGC -XX:TieredStopAtLevel=1)

die() { echo "neo4j.sh: $*" >&2; exit 1; }
note() { echo "neo4j.sh: $*" >&2; }

# --- build ---------------------------------------------------------------------------------

build_stamp() {
  { cat "$HERE/pom.xml" "$HERE"/src/main/java/brain/tools/neo4j/*.java; "$JAVA" -version 2>&1
    echo "${BRAIN_NEO4J_MVN_OPTS:-}"; } \
    | sha256sum | cut -d' ' -f1
}

build_is_current() {
  [[ -s "$CP_FILE" && -f "$TARGET/classes/brain/tools/neo4j/Launcher.class" && -f "$STAMP_FILE" ]] \
    || return 1
  [[ "$(cat "$STAMP_FILE")" == "$(build_stamp)" ]] || return 1
  # every jar still in the local Maven repository?
  local jar
  while IFS= read -r -d: jar || [[ -n "$jar" ]]; do
    [[ -z "$jar" || -f "$jar" ]] || return 1
  done < "$CP_FILE"
}

mvn_retry() {
  # Maven Central sometimes answers HTTP 429 under bursts: retry with back-off.
  local attempt delay=3
  # shellcheck disable=SC2086
  for attempt in 1 2 3 4 5; do
    # (output to stderr, minus the ANSI resets Maven 3.8 prints even in batch mode)
    if mvn -B -q -Dstyle.color=never ${BRAIN_NEO4J_MVN_OPTS:-} -f "$HERE/pom.xml" "$@" 2>&1 \
        | sed -e 's/\x1b\[[0-9;]*m//g' -e '/^[[:space:]]*$/d' >&2; then
      return 0
    fi
    [[ $attempt -lt 5 ]] || break
    note "maven failed (attempt $attempt/5), retrying in ${delay}s"
    sleep "$delay"
    delay=$((delay * 2))
  done
  return 1
}

build() {
  command -v "$JAVA" >/dev/null 2>&1 || die "java not found (set JAVA_HOME or JAVA)"
  mkdir -p "$TARGET"
  exec 8>"$TARGET/.build.lock"
  flock 8
  if ! build_is_current; then
    command -v mvn >/dev/null 2>&1 || die "mvn not found"
    note "building embedded Neo4j launcher (first run downloads ~200 jars into ~/.m2)"
    local stamp
    stamp="$(build_stamp)"
    rm -f "$STAMP_FILE"
    mvn_retry compile dependency:build-classpath -Dmdep.outputFile="$CP_FILE" \
      || die "maven build failed"
    echo "$stamp" > "$STAMP_FILE"
  fi
  flock -u 8
  exec 8>&-
}

# --- class-data sharing (start --cds; --for-tests implies it) ----------------------------------

# A cold JVM reads, parses and verifies ~21,500 classes of Neo4j, Scala and the Cypher compiler
# from ~200 jars, and JIT-compiles the class loading it does. A test server maps most of them
# (16,000 in a run of tests/api/test_documents) from a dynamic CDS archive instead: the first
# --cds start of a build writes one when it stops (-XX:ArchiveClassesAtExit, so it holds every
# class that run needed), later starts map it (-XX:SharedArchiveFile). The same class bytes from
# the same jars: the JVM checks each jar's size and time against the archive and loads from the
# jars if one differs. The archive lives outside the clone (as the build's jars in ~/.m2 do),
# keyed by the build stamp and the classpath; CDS takes classes from jars only, so the
# launcher's classes go in a jar beside it.
JAR="${JAVA%java}jar"
[[ "$JAR" == */jar ]] || JAR=jar

# Sets CDS_CP and CDS_OPTS, or returns 1 (no archive: start from target/classes as ever).
cds_prepare() {
  [[ "$CDS_DIR" != off ]] && command -v "$JAR" >/dev/null 2>&1 || return 1
  local key dir
  key="$({ cat "$STAMP_FILE" "$CP_FILE"; } | sha256sum | cut -c1-16)"
  dir="$CDS_DIR/$key"
  mkdir -p "$dir" 2>/dev/null || return 1
  exec 7>"$dir/.lock"
  flock 7
  # written once: the archive records the jar's size and time
  if [[ ! -s "$dir/launcher.jar" ]]; then
    "$JAR" cf "$dir/launcher.jar.$$" -C "$TARGET/classes" . \
      && mv -f "$dir/launcher.jar.$$" "$dir/launcher.jar" \
      || { rm -f "$dir/launcher.jar.$$"; flock -u 7; exec 7>&-; return 1; }
  fi
  CDS_CP="$dir/launcher.jar:$(cat "$CP_FILE")"
  local writer
  writer="$(cat "$dir/writer" 2>/dev/null || true)"
  if [[ -s "$dir/classes.jsa" ]]; then
    CDS_OPTS=("-XX:SharedArchiveFile=$dir/classes.jsa")
  elif [[ -n "$writer" && "$writer" != "$STATE" ]] \
      && is_alive "$(cat "$writer/neo4j.pid" 2>/dev/null || true)"; then
    :  # a running server (scripts/test's other one) writes it: one write is enough
  else
    echo "$STATE" > "$dir/writer"
    # (-Xlog: not a line per class it leaves out, e.g. of a signed jar or generated at runtime)
    CDS_OPTS=("-XX:ArchiveClassesAtExit=$dir/classes.jsa.$$" -Xlog:cds=error)
    CDS_WRITES="$dir/classes.jsa.$$ $dir/classes.jsa"
  fi
  flock -u 7
  exec 7>&-
}

# After the server's process is gone: keep the archive it wrote at exit, if it exited by itself
# (a SIGKILL may cut the file short) and the JVM reported no CDS error.
cds_finish() {
  local tmp final
  [[ -f "$CDS_PENDING" ]] && read -r tmp final < "$CDS_PENDING" || return 0
  rm -f "$CDS_PENDING" "${final%/*}/writer"
  if [[ "$KILLED" == 0 && -s "$tmp" ]] && ! grep -q '\[error\]\[cds' "$LOG_FILE" 2>/dev/null; then
    mv -f "$tmp" "$final"
  else
    rm -f "$tmp"
  fi
}

# --- process helpers -----------------------------------------------------------------------

# Is $1 a live (non-zombie) Launcher process started for this state dir?
is_alive() {
  local pid="$1"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  local st
  st="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)"
  [[ -n "$st" && "$st" != Z && "$st" != X ]]
}

is_ours() {
  local pid="$1"
  is_alive "$pid" || return 1
  # (no `tr | grep -q` pipe: with pipefail, grep's early exit would SIGPIPE tr and fail)
  local cmdline
  cmdline="$(tr '\0' '\n' < "/proc/$pid/cmdline" 2>/dev/null || true)"
  grep -qxF -- "-Dbrain.neo4j.state=$STATE" <<< "$cmdline"
}

running_pid() {
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  is_ours "$pid" && echo "$pid"
}

# Bolt answering? Uses the Python driver when available, else a plain TCP probe.
have_driver() { [[ -x "$PYTHON" ]] && "$PYTHON" -c 'import neo4j' >/dev/null 2>&1; }

bolt_ok() {
  local uri="$1"
  if [[ "$HAVE_DRIVER" == 1 ]]; then
    timeout 20 "$PYTHON" - "$uri" >/dev/null 2>&1 <<'EOF'
import sys
from neo4j import GraphDatabase
with GraphDatabase.driver(sys.argv[1], auth=None, connection_timeout=5) as d:
    d.verify_connectivity()
EOF
  else
    tcp_ok "$uri"
  fi
}

tcp_ok() {
  local hp="${1#bolt://}"
  timeout 3 bash -c "exec 3<>/dev/tcp/${hp%:*}/${hp##*:}" 2>/dev/null
}

free_port() {
  if [[ -x "$PYTHON" ]]; then
    "$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
  else
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
  fi
}

cleanup_state() {
  local d
  d="$(cat "$DATA_FILE" 2>/dev/null || true)"
  # only ever delete data dirs that live inside the state dir
  if [[ -n "$d" && "$d" == "$STATE"/data.* && -d "$d" ]]; then rm -rf -- "$d"; fi
  rm -f "$PID_FILE" "$URI_FILE" "$DATA_FILE"
  cds_finish
}

KILLED=0
kill_and_wait() {
  local pid="$1" i limit="$STOP_TIMEOUT"
  # a JVM writing its class-data archive at exit takes a while longer (about 30 s at load 10)
  [[ -f "$CDS_PENDING" ]] && ((limit < 300)) && limit=300
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < limit * 5; i++)); do
    is_ours "$pid" || return 0
    sleep 0.2
  done
  note "pid $pid did not stop within ${limit}s, sending SIGKILL"
  KILLED=1
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    is_ours "$pid" || return 0
    sleep 0.2
  done
  die "pid $pid survived SIGKILL"
}

lock_state() {
  exec 9>"$STATE/.lock"
  flock 9
}

# --- commands ------------------------------------------------------------------------------

cmd_start() {
  local port="" auto_port=0 for_tests="${BRAIN_NEO4J_FOR_TESTS:-0}" cds="${BRAIN_NEO4J_CDS:-0}"
  local keep_plans="${BRAIN_NEO4J_KEEP_PLANS:-0}"
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --port) [[ $# -ge 2 ]] || die "--port needs a value"; port="$2"; shift 2 ;;
      --port=*) port="${1#--port=}"; shift ;;
      --for-tests) for_tests=1; shift ;;
      --cds) cds=1; shift ;;
      --keep-plans) keep_plans=1; shift ;;
      *) die "start: unknown argument $1" ;;
    esac
  done
  [[ -z "$port" || "$port" =~ ^[0-9]+$ ]] || die "bad port: $port"
  [[ "$for_tests" == 0 || "$for_tests" == 1 ]] || die "BRAIN_NEO4J_FOR_TESTS must be 0 or 1"
  [[ "$cds" == 0 || "$cds" == 1 ]] || die "BRAIN_NEO4J_CDS must be 0 or 1"
  [[ "$keep_plans" == 0 || "$keep_plans" == 1 ]] || die "BRAIN_NEO4J_KEEP_PLANS must be 0 or 1"
  [[ "$for_tests" == 0 ]] || cds=1
  local mode_opts=("${SERVER_GC_OPTS[@]}") launcher_opts=()
  if [[ "$for_tests" == 1 ]]; then
    mode_opts=("${TEST_JVM_OPTS[@]}")
    launcher_opts=(--for-tests)
  elif [[ "$keep_plans" == 1 ]]; then
    launcher_opts=(--keep-plans)
  fi

  lock_state
  HAVE_DRIVER=0
  if have_driver; then HAVE_DRIVER=1
  else note "warning: $PYTHON cannot import neo4j; falling back to a TCP probe"
  fi

  local pid uri
  if pid="$(running_pid)"; then
    uri="$(cat "$URI_FILE" 2>/dev/null || true)"
    if [[ -n "$port" && -n "$uri" && "$uri" != *":$port" ]]; then
      die "already running at $uri (pid $pid); stop it first to use port $port"
    fi
    if [[ -n "$uri" ]] && bolt_ok "$uri"; then
      echo "$uri"
      return 0
    fi
    note "pid $pid is running but not answering; restarting it"
    kill_and_wait "$pid"
  fi
  cleanup_state

  build
  local cp
  cp="$TARGET/classes:$(cat "$CP_FILE")"
  CDS_OPTS=() CDS_WRITES=""
  if [[ "$cds" == 1 ]] && cds_prepare; then cp="$CDS_CP"; fi
  [[ -z "$port" ]] && auto_port=1

  local attempt
  for attempt in 1 2 3; do
    [[ $auto_port == 1 ]] && port="$(free_port)"
    uri="bolt://127.0.0.1:$port"
    local data
    data="$(mktemp -d "$STATE/data.XXXXXX")"
    echo "$data" > "$DATA_FILE"
    [[ -z "$CDS_WRITES" ]] || echo "$CDS_WRITES" > "$CDS_PENDING"
    # shellcheck disable=SC2086
    nohup "$JAVA" "${JVM_OPTS[@]}" "${mode_opts[@]}" "${CDS_OPTS[@]}" ${BRAIN_NEO4J_JAVA_OPTS:-} \
      "-Dbrain.neo4j.state=$STATE" \
      -cp "$cp" "$MAIN_CLASS" --host 127.0.0.1 --port "$port" --data-dir "$data" \
      --pagecache "$PAGECACHE" --log-level "$LOG_LEVEL" "${launcher_opts[@]}" \
      > "$LOG_FILE" 2>&1 < /dev/null 9>&- &
    pid=$!
    echo "$pid" > "$PID_FILE"

    local deadline=$((SECONDS + START_TIMEOUT)) died=0
    while :; do
      # alive, not ours: the child we just forked may not have exec'd java yet (its cmdline is
      # still this script's), which a busy machine makes likely
      if ! is_alive "$pid"; then died=1; break; fi
      if grep -q '^ready ' "$LOG_FILE" 2>/dev/null && bolt_ok "$uri"; then
        echo "$uri" > "$URI_FILE"
        echo "$uri"
        return 0
      fi
      if ((SECONDS >= deadline)); then break; fi
      sleep 0.5
    done

    if [[ $died == 1 && $auto_port == 1 && $attempt -lt 3 ]] \
        && grep -q 'Address already in use' "$LOG_FILE" 2>/dev/null; then
      note "port $port was taken meanwhile, retrying on another port"
      cleanup_state
      continue
    fi
    if [[ $died == 1 ]]; then
      note "Neo4j exited during startup; last log lines ($LOG_FILE):"
    else
      note "Neo4j did not answer on $uri within ${START_TIMEOUT}s; last log lines ($LOG_FILE):"
      kill_and_wait "$pid" || true
    fi
    tail -n 40 "$LOG_FILE" >&2 || true
    cleanup_state
    exit 1
  done
}

cmd_stop() {
  lock_state
  local pid
  if pid="$(running_pid)"; then
    kill_and_wait "$pid"
  fi
  cleanup_state
}

cmd_status() {
  local pid uri
  pid="$(running_pid)" || return 1
  uri="$(cat "$URI_FILE" 2>/dev/null || true)"
  [[ -n "$uri" ]] && tcp_ok "$uri" || return 1
  echo "$uri"
}

cmd_uri() {
  cmd_status || die "not running (state dir $STATE)"
}

case "${1:-}" in
  start) shift; cmd_start "$@" ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  uri) cmd_uri ;;
  build) build ;;
  log) cat "$LOG_FILE" ;;
  *) echo "usage: $0 {start [--port N] [--for-tests]|stop|status|uri|build|log}" >&2; exit 2 ;;
esac
