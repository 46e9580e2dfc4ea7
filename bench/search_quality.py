"""bench_search's measures of search by meaning: the encoder's notes per CPU-second on each
runtime, the time until a first start's notes are all searchable by meaning, and relevance per
class of query on the labelled set. Each runs in a fresh process (bench_search.py runs them,
interleaved, and takes medians); the CPU time is the figure, the load average is printed with it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

THROUGHPUT = r"""
import json, os, random, re, resource, sys
from pathlib import Path
from brain.search.embedding import NOTE_TOKENS
root, runtime, sample = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
files = sorted((root / "memory").rglob("*.md"))
texts = []
for f in random.Random(7).sample(files, min(sample, len(files))):
    head, _, body = f.read_text(encoding="utf-8").partition("\n---\n")
    name = re.search(r"^name: (.*)$", head, re.M)
    description = re.search(r"^description: (.*)$", head, re.M)
    texts.append(f"{(name.group(1) if name else f.stem).replace('-', ' ')}. "
                 f"{description.group(1) if description else ''}\n{body[:2000]}")
if runtime == "numpy":
    from brain.search.minilm import MiniLM as Model
else:
    from brain.search.minilm_onnx import OnnxMiniLM as Model
model = Model(max_tokens=int(os.environ.get("BENCH_TOKENS", NOTE_TOKENS)))
model.encode(texts[:8])
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF); return r.ru_utime + r.ru_stime
start = cpu(); model.encode(texts); spent = cpu() - start
print(json.dumps({"runtime": runtime, "notes": len(texts), "cpu_s": spent,
                  "notes_per_cpu_s": len(texts) / spent, "load": os.getloadavg()[0]}))
"""

FIRST_START = r"""
import json, os, resource, sys, tempfile, time
from pathlib import Path
os.environ["BRAIN_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-vectors-")  # nothing cached
from brain.search.service import Embedding
from brain.service.brain import Brain
from brain.store.memory import MemoryStore
brain = Brain(Path(sys.argv[1]), MemoryStore())
brain.embedding = Embedding.HELPER
def children():
    kids = resource.getrusage(resource.RUSAGE_CHILDREN); return kids.ru_utime + kids.ru_stime
t0 = time.perf_counter(); brain.sync(); synced = time.perf_counter() - t0
before = children()  # the ingest's parse helpers
assert brain.search.indexer.wait(timeout=7200)
ready = time.perf_counter() - t0
status = brain.search.status()
brain.close()
helper_cpu = children() - before  # the embedding helper, reaped by close()
print(json.dumps({"notes": status.done, "model": status.model, "sync_s": synced, "ready_s": ready,
                  "helper_cpu_s": helper_cpu, "helper_notes_per_cpu_s": status.done / max(helper_cpu, 1e-9),
                  "load": os.getloadavg()[0]}))
"""

RELEVANCE = r"""
import json, os, sys, tempfile
os.environ["BRAIN_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-vectors-")
sys.path.insert(0, sys.argv[1])
from brain.search.service import Mode
from tests.search.helpers import example_brain, labelled, measure
brain = example_brain()
out = {"model": brain.search.status().model}
for kind in [None, *sorted({q.kind for q in labelled()})]:
    for mode in (Mode.KEYWORD, Mode.SEMANTIC, Mode.HYBRID):
        got = measure(brain.search, mode, kind)
        out[f"{kind or 'all'}_{mode.value}"] = [round(got.recall_at_3, 3), round(got.mrr, 3)]
brain.close()
print(json.dumps(out))
"""


def _run(code: str, *args: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True, text=True)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    print(json.dumps(result), flush=True)
    return result


def throughput(root: Path, runtime: str, sample: int) -> dict[str, object]:
    return _run(THROUGHPUT, str(root), runtime, str(sample))


def first_start(root: Path) -> dict[str, object]:
    return _run(FIRST_START, str(root))


def relevance() -> dict[str, object]:
    return _run(RELEVANCE, str(HERE.parent))
