"""brain: a knowledge graph of AI agents' markdown memory."""

__version__ = "0.1.0"
