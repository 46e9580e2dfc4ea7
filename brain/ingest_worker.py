"""A helper process of a big ingest: parses the memory files it is sent on stdin.

Input and output are pickles over pipes between two processes of the same brain install;
`brain.memory_files.build_memories` starts it and parses the share itself if this fails.
"""

from __future__ import annotations

import gc
import pickle
import sys

from brain.memory_files import MemoryFile, NoteRules, build_memory


def main() -> int:
    gc.disable()  # a short-lived process of acyclic data: collections would only cost time
    payload: tuple[NoteRules | None, list[MemoryFile]] = pickle.loads(sys.stdin.buffer.read())
    rules, files = payload
    result = [build_memory(*f, rules=rules) for f in files]
    sys.stdout.buffer.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
