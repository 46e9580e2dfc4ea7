"""all-MiniLM-L6-v2 as an int8 ONNX graph, for ONNX Runtime: 10 times the notes per CPU-second.

brain embedded notes at 32.6 per CPU-second on numpy (float32 matrix products through OpenBLAS,
one core). ONNX Runtime runs the same network with int8 matrix products (dynamic quantization:
weights int8 per output channel, activations quantized per batch; VNNI where the CPU has it)
and fused kernels. Measured on the 2-core development machine, 32 tokens a note: numpy 70,
ONNX Runtime float32 155, ONNX Runtime int8 326 notes per CPU-second (docs/search.md).

The graph is written here op by op from the safetensors weights with the `onnx` package (no
torch, no export tracing), then quantized with onnxruntime.quantization. Both packages are
needed only to build (`make dist`, scripts/dist); at run time brain needs onnxruntime alone.
The graph computes what brain/search/minilm.py computes on numpy: BERT's 6 layers (exact erf
GELU here), mean pooling over the attention mask, L2 normalisation.

    python minilm_onnx.py IN.safetensors OUT.onnx

IN may be float32 (the upstream file) or brain-minilm's int8 (a scale per row, quantize.py).
"""

import json
import os
import struct
import sys
import tempfile

import numpy as np

HIDDEN, HEADS, LAYERS = 384, 12, 6


def read(path):
    """float32 tensors of a .safetensors file; int8 `<name>` with `<name>.scale` multiplied back."""
    data = open(path, "rb").read()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    base, out, ints = 8 + size, {}, {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] not in ("F32", "I8"):
            continue
        start, end = info["data_offsets"]
        dtype = "<f4" if info["dtype"] == "F32" else np.int8
        array = np.frombuffer(data[base + start : base + end], dtype=dtype).reshape(info["shape"])
        (out if info["dtype"] == "F32" else ints)[name] = array
    for name, values in ints.items():
        out[name] = values.astype(np.float32) * out.pop(name + ".scale")[:, None]
    return out


def graph(w):
    """The float32 model: inputs input_ids and attention_mask (int64, [n, length]), output
    `embedding` ([n, 384], unit rows)."""
    from onnx import TensorProto, helper, numpy_helper

    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op, inputs, **attrs):
        out = f"{op.lower()}_{len(nodes)}"
        nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def scalar(name, value):
        return const(name, np.array(value, np.float32))

    def layer_norm(x, prefix):
        return node("LayerNormalization", [x, const(prefix + ".w", w[prefix + ".weight"]),
                                           const(prefix + ".b", w[prefix + ".bias"])], epsilon=1e-12, axis=-1)

    def linear(x, prefix):
        y = node("MatMul", [x, const(prefix + ".wt", w[prefix + ".weight"].T)])
        return node("Add", [y, const(prefix + ".b", w[prefix + ".bias"])])

    length = node("Slice", [node("Shape", ["input_ids"]), const("at1", np.array([1], np.int64)),
                            const("at2", np.array([2], np.int64))])
    positions = node("Slice", [const("positions", w["embeddings.position_embeddings.weight"]),
                               const("at0", np.array([0], np.int64)), length, const("axis0", np.array([0], np.int64))])
    x = node("Gather", [const("words", w["embeddings.word_embeddings.weight"]), "input_ids"])
    x = node("Add", [node("Add", [x, positions]), const("type0", w["embeddings.token_type_embeddings.weight"][0])])
    x = layer_norm(x, "embeddings.LayerNorm")
    mask = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    # -10,000 where a position is padding: exp() of it is 0 after the softmax's max shift.
    bias = node("Unsqueeze", [node("Mul", [node("Sub", [scalar("one", 1.0), mask]), scalar("neg", -1e4)]),
                              const("axes12", np.array([1, 2], np.int64))])
    split = const("split", np.array([0, 0, HEADS, HIDDEN // HEADS], np.int64))
    join = const("join", np.array([0, 0, HIDDEN], np.int64))
    scale = scalar("scale", 1 / np.sqrt(HIDDEN // HEADS))
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."

        def heads(t, perm):
            return node("Transpose", [node("Reshape", [t, split])], perm=perm)

        q = heads(linear(x, p + "attention.self.query"), [0, 2, 1, 3])
        k = heads(linear(x, p + "attention.self.key"), [0, 2, 3, 1])
        v = heads(linear(x, p + "attention.self.value"), [0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k]), scale]), bias])
        attended = node("MatMul", [node("Softmax", [scores], axis=-1), v])
        attended = node("Reshape", [node("Transpose", [attended], perm=[0, 2, 1, 3]), join])
        x = layer_norm(node("Add", [linear(attended, p + "attention.output.dense"), x]), p + "attention.output.LayerNorm")
        up = linear(x, p + "intermediate.dense")
        erf = node("Erf", [node("Div", [up, scalar("sqrt2", np.sqrt(2.0))])])
        gelu = node("Mul", [node("Mul", [up, node("Add", [erf, scalar("one", 1.0)])]), scalar("half", 0.5)])
        x = layer_norm(node("Add", [linear(gelu, p + "output.dense"), x]), p + "output.LayerNorm")
    weighted = node("Mul", [x, node("Unsqueeze", [mask, const("axis2", np.array([2], np.int64))])])
    summed = node("ReduceSum", [weighted, const("axis1", np.array([1], np.int64))], keepdims=0)
    count = node("Max", [node("ReduceSum", [mask, const("axis1", np.array([1], np.int64))], keepdims=1),
                         scalar("tiny", 1e-9)])
    nodes.append(helper.make_node("LpNormalization", [node("Div", [summed, count])], ["embedding"], axis=1, p=2))
    # Names given twice (a scalar reused) are one initializer.
    inits = list({init.name: init for init in inits}.values())
    g = helper.make_graph(
        nodes, "all-MiniLM-L6-v2",
        [helper.make_tensor_value_info(n, TensorProto.INT64, ["n", "length"]) for n in ("input_ids", "attention_mask")],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["n", HIDDEN])], inits,
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="brain tools/dist")
    model.ir_version = 8  # what onnxruntime >= 1.15 reads
    return model


def main(source, target):
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = graph(read(source))
    onnx.checker.check_model(model)
    with tempfile.TemporaryDirectory() as tmp:
        plain = os.path.join(tmp, "float32.onnx")
        onnx.save(model, plain)
        quantize_dynamic(plain, target, weight_type=QuantType.QInt8, per_channel=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
