"""tools/neo4j/neo4j.sh start --cds: the first start of a build writes a class-data archive when
its JVM stops, later starts map it, and an archive the JVM did not finish is not kept (a start
would map a broken one, or none ever again). And start --keep-plans reaches the launcher.

Run on a copy of tools/neo4j with a built-looking target/ and a stand-in `java` that records its
arguments, answers on the port, and at exit writes the file -XX:ArchiveClassesAtExit names, as
the JVM does: no Maven and no Neo4j needed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LAUNCHER = "tools/neo4j/src/main/java/brain/tools/neo4j/Launcher.java"
VERSION = "stand-in java 17\n"

FAKE_JAVA = f"""#!{sys.executable}
import json, os, signal, socket, sys
args = sys.argv[1:]
if args == ["-version"]:
    sys.stdout.write({VERSION!r})
    sys.exit(0)
with open(os.environ["FAKE_JAVA_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
port = int(args[args.index("--port") + 1])
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen()
print(f"ready bolt://127.0.0.1:{{port}}", flush=True)
def stop(*_):
    for a in args:
        if a.startswith("-XX:ArchiveClassesAtExit="):
            error = os.environ.get("FAKE_CDS_ERROR")
            # a JVM that fails part-way may leave what it wrote so far
            open(a.split("=", 1)[1], "w").write("part of an archive" if error else "archive")
            if error:
                print("[1.0s][error][cds] Error: could not write the archive", flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
while True:
    signal.pause()
"""


def tool(into: Path) -> Path:
    """A copy of tools/neo4j whose build is current for the stand-in java."""
    here = into / "tools" / "neo4j"
    for name in ["tools/neo4j/neo4j.sh", "tools/neo4j/pom.xml", LAUNCHER]:
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, into / name)
    classes = here / "target" / "classes" / "brain" / "tools" / "neo4j"
    classes.mkdir(parents=True)
    (classes / "Launcher.class").write_bytes(b"\xca\xfe\xba\xbe")
    jar = into / "m2" / "neo4j.jar"
    jar.parent.mkdir()
    jar.write_bytes(b"jar")
    (here / "target" / "classpath.txt").write_text(str(jar))
    # neo4j.sh's build_stamp: pom.xml, the launcher's sources, `java -version`, the Maven options
    stamp = hashlib.sha256(
        (REPO / "tools/neo4j/pom.xml").read_bytes()
        + (REPO / LAUNCHER).read_bytes()
        + VERSION.encode()
        + b"\n"
    ).hexdigest()
    (here / "target" / "build.stamp").write_text(stamp + "\n")
    bin_dir = into / "bin"
    bin_dir.mkdir()
    (bin_dir / "java").write_text(FAKE_JAVA)
    (bin_dir / "java").chmod(0o755)
    real_jar = shutil.which("jar")
    assert real_jar, "the JDK's jar tool (tools/neo4j needs a JDK)"
    (bin_dir / "jar").symlink_to(real_jar)
    return here / "neo4j.sh"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Tool:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.script = tool(root)
        self.cds = root / "cds"
        self.log = root / "java.log"

    def run(self, *args: str, **env: str) -> str:
        full = {
            **os.environ,
            "JAVA": str(self.root / "bin" / "java"),
            "PYTHON": "/nonexistent",
            "BRAIN_NEO4J_STATE": str(self.root / "state"),
            "BRAIN_NEO4J_CDS_DIR": str(self.cds),
            "FAKE_JAVA_LOG": str(self.log),
            "BRAIN_NEO4J_START_TIMEOUT": "60",
            "BRAIN_NEO4J_FOR_TESTS": "0",
            "BRAIN_NEO4J_CDS": "0",
            "BRAIN_NEO4J_KEEP_PLANS": "0",
            **env,
        }
        done = subprocess.run(
            ["bash", str(self.script), *args], env=full, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def started(self, *args: str, **env: str) -> list[str]:
        """Start and stop a server; the stand-in java's arguments."""
        self.run("start", "--port", str(free_port()), *args, **env)
        self.run("stop", **env)
        return list(json.loads(self.log.read_text().splitlines()[-1]))

    def kept(self) -> list[str]:
        return sorted(p.name for p in self.cds.glob("*/*") if not p.name.startswith("."))


def classpath(args: list[str]) -> str:
    return args[args.index("-cp") + 1]


def test_the_first_cds_start_writes_the_archive_and_later_starts_map_it(tmp_path: Path) -> None:
    neo4j = Tool(tmp_path)
    first = neo4j.started("--cds")
    (key,) = (p.name for p in neo4j.cds.iterdir())
    kept = neo4j.cds / key
    (writes,) = (a for a in first if a.startswith("-XX:ArchiveClassesAtExit="))
    assert writes.startswith(f"-XX:ArchiveClassesAtExit={kept}/classes.jsa.")
    assert not any(a.startswith("-XX:SharedArchiveFile=") for a in first)
    assert classpath(first).split(":")[0] == f"{kept}/launcher.jar"
    assert neo4j.kept() == ["classes.jsa", "launcher.jar"]  # not the one being written
    assert (kept / "classes.jsa").read_text() == "archive"

    second = neo4j.started("--cds")
    assert f"-XX:SharedArchiveFile={kept}/classes.jsa" in second
    assert not any(a.startswith("-XX:ArchiveClassesAtExit=") for a in second)
    assert classpath(second) == classpath(first)
    # --for-tests implies it
    assert f"-XX:SharedArchiveFile={kept}/classes.jsa" in neo4j.started("--for-tests")
    assert f"-XX:SharedArchiveFile={kept}/classes.jsa" in neo4j.started(BRAIN_NEO4J_CDS="1")


def test_an_archive_the_jvm_reported_an_error_on_is_not_kept(tmp_path: Path) -> None:
    neo4j = Tool(tmp_path)
    args = neo4j.started("--cds", FAKE_CDS_ERROR="1")
    assert any(a.startswith("-XX:ArchiveClassesAtExit=") for a in args)
    assert neo4j.kept() == ["launcher.jar"]
    # so the next start writes one again
    assert any(a.startswith("-XX:ArchiveClassesAtExit=") for a in neo4j.started("--cds"))
    assert "classes.jsa" in neo4j.kept()


def test_a_plain_start_and_cds_off_take_the_classes_from_the_build(tmp_path: Path) -> None:
    neo4j = Tool(tmp_path)
    build = str(tmp_path / "tools/neo4j/target/classes")
    for args, env in [((), {}), (("--for-tests",), {"BRAIN_NEO4J_CDS_DIR": "off"})]:
        started = neo4j.started(*args, **env)
        assert not any("SharedArchive" in a or "ArchiveClassesAtExit" in a for a in started)
        assert classpath(started).split(":")[0] == build
    assert not neo4j.cds.exists()


def test_of_two_servers_started_together_one_writes_the_archive(tmp_path: Path) -> None:
    neo4j = Tool(tmp_path)
    other = {"BRAIN_NEO4J_STATE": str(tmp_path / "other")}
    neo4j.run("start", "--port", str(free_port()), "--cds")
    neo4j.run("start", "--port", str(free_port()), "--cds", **other)
    neo4j.run("stop", **other)
    neo4j.run("stop")
    first, second = (list(json.loads(line)) for line in neo4j.log.read_text().splitlines())
    assert any(a.startswith("-XX:ArchiveClassesAtExit=") for a in first)
    assert not any("ArchiveClassesAtExit" in a or "SharedArchiveFile" in a for a in second)
    assert classpath(second) == classpath(first)
    assert neo4j.kept() == ["classes.jsa", "launcher.jar"]


def test_keep_plans_is_passed_to_the_launcher_and_for_tests_implies_it(tmp_path: Path) -> None:
    """The launcher keeps plans for --keep-plans and --for-tests alone (Launcher.java keepPlans)."""
    neo4j = Tool(tmp_path)
    neo4j.started("--cds")  # (writes the archive the next starts map)
    plain = neo4j.started("--cds")
    assert "--keep-plans" not in plain
    assert "--for-tests" not in plain
    for args, env in [(("--cds", "--keep-plans"), {}), (("--cds",), {"BRAIN_NEO4J_KEEP_PLANS": "1"})]:
        started = neo4j.started(*args, **env)
        assert started[started.index("--port"):].count("--keep-plans") == 1
        assert "--for-tests" not in started
        assert started[:started.index("-cp")] == plain[:plain.index("-cp")]  # the same JVM flags
    for_tests = neo4j.started("--for-tests", "--keep-plans")
    assert "--for-tests" in for_tests
    assert "--keep-plans" not in for_tests
