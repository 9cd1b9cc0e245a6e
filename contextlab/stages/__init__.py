"""The pipeline's stages, one module each; every stage is a pure function over documents."""
