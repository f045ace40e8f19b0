"""psab's version, in a module of its own so that any module can read it without importing the
public facade :mod:`psab` (which imports the kernels lazily: that would close an import circle).
The build reads it from here too (``[tool.hatch.version]`` in ``pyproject.toml``)."""

__version__ = "0.1.0"
