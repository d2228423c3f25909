"""Pictures of MIG layouts: the terminal's, the pull request comment's and the SVG, each a rendering of
``domain.mig_drawing.Picture``, built here from a fit answer or a plan (entry-point level, above ``fit`` and
``plan``; ``cli`` calls it)."""
