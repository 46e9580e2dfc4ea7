"""all-MiniLM-L6-v2 on ONNX Runtime, int8: the encoder when onnxruntime is installed.

numpy's float32 matrix products embedded 32.6 notes per CPU-second (64 tokens a note): a first
start over 100,000 notes cost 50 minutes of CPU before search by meaning covered them.
`make dist` writes the same network as an int8 ONNX graph into brain-minilm
(tools/dist/minilm_onnx.py: weights int8 per output channel, activations quantized per batch),
which ONNX Runtime runs at 285-370 notes per CPU-second at 32 tokens a note (numpy: 55-70) and
350 at 24, its vectors within a cosine of 0.98 of numpy's and the labelled set's recall@3 and
MRR unchanged (docs/search.md). One thread, no spinning: the embedding helper runs beside a server on a
shared machine, and more threads buy no notes per CPU-second, only contention.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from brain.search.minilm import MAX_TOKENS, Matrix, Tokens, model_dir

MODEL_FILE = "model.onnx"


def onnx_model() -> Path | None:
    """The packaged int8 graph, or None if onnxruntime or the graph is missing (a model
    package built before it, or an install without onnxruntime): then numpy runs the model."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return None
    path = model_dir() / MODEL_FILE
    return path if path.is_file() else None


class OnnxMiniLM(Tokens):
    name = "onnx-int8"

    def __init__(self, folder: Path | None = None, max_tokens: int = MAX_TOKENS) -> None:
        import onnxruntime as ort

        super().__init__(folder, max_tokens)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # shape-merge warnings on stderr are not the user's business
        self._session: Any = ort.InferenceSession(
            str(self.folder / MODEL_FILE), options, providers=["CPUExecutionProvider"]
        )

    def _forward(self, ids: npt.NDArray[np.int64], mask: Matrix) -> Matrix:
        out = self._session.run(["embedding"], {"input_ids": ids, "attention_mask": mask.astype(np.int64)})
        return np.asarray(out[0], dtype=np.float32)
