"""The limits every untrusted document shares, whatever its syntax: a stack file (YAML) and a base plan (JSON) are
refused at the same depth and size."""

MAX_FILE_BYTES = 1 << 20  # 1 MiB; the largest real stack file is a few KB
MAX_DEPTH = 64
MAX_NODES = 100_000  # scalars and collections; in YAML each alias counted as the nodes it stands for
MAX_INT_DIGITS = 30  # Python spends quadratic time on a 5,000-digit integer
