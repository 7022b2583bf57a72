"""The pipeline's stages, one module per stage; each exposes ``run(ctx)``. Order lives in ``pipeline.py``."""
