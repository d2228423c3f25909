"""The one place the package version lives (pyproject reads it; ``gpupools --version`` prints it)."""

__version__ = "0.2.0"
