"""The model pass: a model tidies one scope through the memory tool, over an OpenAI-compatible endpoint."""
