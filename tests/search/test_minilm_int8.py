"""brain-minilm's weights are int8 with a float32 scale per row (tools/dist/quantize.py, run
by `make dist`); brain's safetensors reader multiplies them back. Here the real quantizer
writes a real file and the real reader reads it; a file whose int8 tensor lost its scale is
refused with the file and tensor named, never read as garbage weights."""

from __future__ import annotations

import importlib.util
import json
import struct
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from brain.search.minilm import read_safetensors

ROOT = Path(__file__).resolve().parents[2]


def _quantizer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("quantize", ROOT / "tools" / "dist" / "quantize.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_int8_weights_read_back_within_half_a_step(tmp_path: Path) -> None:
    quantize = _quantizer()
    rng = np.random.default_rng(7)
    weights = {
        "layer.weight": (rng.standard_normal((48, 32)) * rng.uniform(0.01, 2, (48, 1))).astype("<f4"),
        "layer.bias": rng.standard_normal(48).astype("<f4"),
    }
    source, packed = tmp_path / "f32.safetensors", tmp_path / "int8.safetensors"
    quantize.write(source, weights)
    quantize.main(source, packed)
    header = json.loads(packed.read_bytes()[8 : 8 + struct.unpack("<Q", packed.read_bytes()[:8])[0]])
    assert header["layer.weight"]["dtype"] == "I8"
    assert header["layer.bias"]["dtype"] == "F32"  # 1-D tensors stay float32

    got = read_safetensors(packed)
    assert set(got) == {"layer.weight", "layer.bias"}  # the scales are folded in, not exposed
    assert got["layer.weight"].dtype == np.float32
    step = np.abs(weights["layer.weight"]).max(axis=1, keepdims=True) / 127
    assert np.all(np.abs(got["layer.weight"] - weights["layer.weight"]) <= step / 2 + 1e-7)
    np.testing.assert_array_equal(got["layer.bias"], weights["layer.bias"])
    assert read_safetensors(source).keys() == weights.keys()  # float32 files read as before


def test_int8_tensor_without_its_scale_is_refused(tmp_path: Path) -> None:
    quantize = _quantizer()
    broken = tmp_path / "broken.safetensors"
    quantize.write(broken, {"layer.weight": np.ones((4, 4), dtype=np.int8)})
    with pytest.raises(ValueError, match=r"broken\.safetensors: the int8 tensor layer\.weight has no"):
        read_safetensors(broken)
