"""The encoder's runtimes and its token window: ONNX Runtime (int8) where it is installed, numpy
where not, the same vectors within a cosine of 0.97 and the same ranking; notes tokenized from
their heads exactly as from their whole text.

ONNX Runtime's legs run where onnxruntime and brain-minilm's model.onnx are installed (`make
dist`'s wheel; a model wheel built before it has no graph, and numpy runs the model there).
The graph builder's leg runs where `onnx` is installed too (a release build's tools venv)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from brain.search.embedding import NOTE_TOKENS, MiniLMEncoder, model_name
from brain.search.minilm import MiniLM, Tokens, model_dir
from brain.search.minilm_onnx import MODEL_FILE, OnnxMiniLM, onnx_model
from tests.search.helpers import EXAMPLE, labelled, needs_model

ROOT = Path(__file__).resolve().parents[2]


def _notes() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(EXAMPLE.rglob("*.md"))]


def _awkward() -> list[str]:
    """Texts whose heads hold fewer than a window of tokens: whitespace runs, one long word,
    markup; and texts cut right at a word."""
    return [
        "a" + " " * 600 + " ".join(f"word{i}" for i in range(200)),
        "x" * 3000,
        "|" + "|".join(["  ---  "] * 200) + "| the table's caption comes last",
        ("supercalifragilistic " * 40).strip(),
        "short note",
        "",
        "line\n" * 300,
    ]


def test_notes_tokenize_from_their_heads_as_from_their_whole_text() -> None:
    needs_model()
    tokens = Tokens(max_tokens=NOTE_TOKENS)
    texts = _notes() + _awkward()
    heads = tokens.tokens(texts)
    whole = tokens.tokenizer.encode_batch(texts)
    for text, got, want in zip(texts, heads, whole, strict=True):
        assert got.ids[: sum(got.attention_mask)] == want.ids[: sum(want.attention_mask)], text[:80]


def test_the_cache_is_named_after_the_runtime_that_fills_it() -> None:
    needs_model()
    encoder = MiniLMEncoder()
    # The query encoder's name (found without loading a runtime) is the helper's cache name.
    assert encoder.name == model_name()
    runtime = "onnx-int8" if onnx_model() is not None else "int8"
    assert encoder.name == f"all-minilm-l6-v2-{runtime}-t{NOTE_TOKENS}"


def _needs_onnx() -> None:
    needs_model()
    if onnx_model() is None:
        pytest.skip(f"onnxruntime or brain-minilm's {MODEL_FILE} is not installed: numpy runs the model")


def _agree(fast: Tokens, slow: MiniLM) -> None:
    texts = _notes() + [q.query for q in labelled()]
    a, b = fast.encode(texts), slow.encode(texts)
    cosines = (a * b).sum(1)
    assert cosines.min() >= 0.97, cosines.min()
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-4)
    # For every labelled query, numpy's nearest note is as near in ONNX Runtime's space as that
    # space's own nearest, but for a near tie: each vector moves by up to 0.03, so two notes a
    # cosine of 0.03 apart may swap; a little more on a CPU without VNNI, whose int8 products
    # ONNX Runtime computes less exactly (0.055 measured on an AVX2-only AMD EPYC).
    notes = len(_notes())
    fast_scores = a[notes:] @ a[:notes].T
    slow_nearest = (b[notes:] @ b[:notes].T).argmax(1)
    gaps = fast_scores.max(1) - fast_scores[np.arange(len(slow_nearest)), slow_nearest]
    assert gaps.max() <= (0.05 if _vnni() else 0.06), gaps.max()


def _vnni() -> bool:
    """Whether the CPU has the int8 dot-product instructions ONNX Runtime's int8 kernels use."""
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8").split()
    except OSError:
        return False  # not Linux: the looser bound
    return "avx512_vnni" in flags or "avx_vnni" in flags


def test_onnx_runtime_encodes_as_numpy_does() -> None:
    _needs_onnx()
    _agree(OnnxMiniLM(max_tokens=NOTE_TOKENS), MiniLM(max_tokens=NOTE_TOKENS))


def _builder() -> ModuleType:
    path = ROOT / "tools" / "dist" / "minilm_onnx.py"
    spec = importlib.util.spec_from_file_location("minilm_onnx_build", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_dist_graph_builder_writes_the_network_numpy_runs(tmp_path: Path) -> None:
    needs_model()
    pytest.importorskip("onnx", reason="the graph is built where `onnx` is installed (make dist)")
    pytest.importorskip("onnxruntime")
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "tokenizer.json").write_bytes((model_dir() / "tokenizer.json").read_bytes())
    _builder().main(str(model_dir() / "model.safetensors"), str(folder / MODEL_FILE))
    _agree(OnnxMiniLM(folder, max_tokens=NOTE_TOKENS), MiniLM(max_tokens=NOTE_TOKENS))
