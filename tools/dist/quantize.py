"""all-MiniLM-L6-v2's weight matrices as int8, for a wheel a quarter the size (90 -> 23 MB).

Each 2-D float32 tensor (the embeddings, every Linear weight) becomes int8 with one float32
scale per row (symmetric: the row's largest |value| maps to 127), stored as `<name>` (I8) and
`<name>.scale` (F32) in the same .safetensors; biases and LayerNorms stay float32.
brain/search/minilm.py's `read_safetensors` multiplies them back at load, so the encoder runs
on float32 as before. `make dist` checks what it costs (tests/search/test_relevance.py's floors,
and the cosine between the two models' vectors, in docs/search.md).

    python quantize.py IN.safetensors OUT.safetensors
"""

import json
import struct
import sys

import numpy as np


def read(path):
    data = open(path, "rb").read()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    base = 8 + size
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue  # position_ids (I64): brain's loader does not read it either
        start, end = info["data_offsets"]
        out[name] = np.frombuffer(data[base + start : base + end], dtype="<f4").reshape(info["shape"])
    return out


def write(path, tensors):
    header, chunks, offset = {}, [], 0
    for name, array in tensors.items():
        raw = array.tobytes()
        dtype = {np.dtype("int8"): "I8", np.dtype("<f4"): "F32"}[array.dtype]
        header[name] = {"dtype": dtype, "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        pad = (-len(raw)) % 8
        chunks.append(raw + b"\0" * pad)
        offset += len(raw) + pad
        header[name]["data_offsets"][1] = offset - pad
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * ((-len(head)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head + b"".join(chunks))


def main(src, dst):
    out = {}
    for name, w in read(src).items():
        if w.ndim == 2:
            scale = np.maximum(np.abs(w).max(axis=1), 1e-12) / 127.0
            out[name] = np.clip(np.rint(w / scale[:, None]), -127, 127).astype(np.int8)
            out[name + ".scale"] = scale.astype("<f4")
        else:
            out[name] = np.ascontiguousarray(w, dtype="<f4")
    write(dst, out)


if __name__ == "__main__":
    main(*sys.argv[1:])
