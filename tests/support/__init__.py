"""Shared test helpers (not tests): stack configs, chart variants, helm rendering, fakes and the golden outputs."""
