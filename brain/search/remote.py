"""The server's side of the embedding helper (brain/search/helper.py): start it, feed it, stop it.

Started on the first batch, not at import or start-up, so a server nobody searches pays
nothing. Waiting for an answer is a blocking pipe read, which releases the GIL: the serving
threads run while the helper computes. If the helper dies, `embed` raises `EmbedderFailed`
with its exit status and the indexer reports keyword-only search; the server carries on.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import brain
from brain.search.embedding import EmbedderFailed
from brain.search.helper import read_frame, write_frame

STOP_SECONDS = 5.0  # how long a helper told to stop may take to exit before it is killed
HELPER_THREADS = {
    "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


class HelperEmbedder:
    def __init__(self, command: Sequence[str] | None = None) -> None:
        self._command = list(command or [sys.executable, "-m", "brain.search.helper"])
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._closed = False
        self.model = ""
        self.dims = 0

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def embed(self, texts: Sequence[str]) -> tuple[Sequence[Sequence[float]], int]:
        import numpy as np

        with self._lock:
            process = self._started()
            assert process.stdin is not None
            assert process.stdout is not None
            try:
                write_frame(process.stdin, json.dumps(list(texts)).encode())
                process.stdin.flush()
                header = self._header(process.stdout)
                if "error" in header:
                    raise EmbedderFailed(f"the embedding helper refused a batch: {header['error']}")
                count, dims = int(header["count"]), int(header["dims"])
                data = process.stdout.read(count * dims * 4)
            except (OSError, ValueError) as exc:
                raise self._died(exc) from exc
            if len(data) < count * dims * 4:
                raise self._died(None)
            matrix = np.frombuffer(data, dtype="<f4").reshape(count, dims)
            return list(matrix), int(header.get("embedded", 0))

    def _started(self) -> subprocess.Popen[bytes]:
        if self._closed:
            raise EmbedderFailed("the embedding helper was stopped")
        if self._process is not None:
            return self._process
        env = dict(os.environ)
        # The helper imports brain from wherever this process did (a checkout on sys.path too).
        home = str(Path(brain.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (home, env.get("PYTHONPATH", "")) if p)
        # One core at most: the helper shares the machine with its server, and a second thread
        # (OpenBLAS's, the tokenizer's) buys no notes per CPU-second, only a core the server's
        # requests then wait for. ONNX Runtime is told the same in its session options.
        env.update(HELPER_THREADS)
        try:
            self._process = subprocess.Popen(
                self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
            )
        except OSError as exc:
            raise EmbedderFailed(f"the embedding helper could not start: {exc}") from exc
        assert self._process.stdout is not None
        try:
            hello = self._header(self._process.stdout)
        except (OSError, ValueError) as exc:
            raise self._died(exc) from exc
        if "error" in hello:
            self._reap()
            raise EmbedderFailed(str(hello["error"]))
        self.model, self.dims = str(hello["model"]), int(hello["dims"])
        return self._process

    @staticmethod
    def _header(stream: IO[bytes]) -> dict[str, Any]:
        frame = read_frame(stream)
        if frame is None:
            raise ValueError("the embedding helper closed its output")
        header = json.loads(frame)
        if not isinstance(header, dict):
            raise ValueError("the embedding helper answered something that is not a header")
        return header

    def _died(self, exc: BaseException | None) -> EmbedderFailed:
        code = self._reap()
        how = f"exit status {code}" if code is not None and code >= 0 else f"signal {-(code or 0)}"
        detail = f" ({exc})" if exc is not None and code is None else ""
        return EmbedderFailed(f"the embedding helper stopped ({how}){detail}")

    def _reap(self) -> int | None:
        process, self._process = self._process, None
        if process is None:
            return None
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        try:
            return process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            return process.wait()

    def close(self) -> None:
        """Stop the helper now (SIGTERM), and kill it if it lingers.

        It used to be left to finish its batch (or its model load) and see the closed pipe,
        which held a stopping server for seconds: a batch in flight is only recomputed at
        the next start (the vector cache is SQLite, whose writes survive a kill), so nothing
        is lost. Not under the lock: a batch in flight may hold it.
        """
        self._closed = True
        process = self._process
        if process is None:
            return
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        with contextlib.suppress(OSError):
            process.terminate()
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            with contextlib.suppress(OSError):
                process.stdout.close()
