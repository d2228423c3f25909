"""The one kit for input gpupools does not control: files a user names, servers it asks, environment variables.

Every reader of untrusted input goes through here, so each limit is set once: ``files`` (regular files of bounded
size, UTF-8), ``strict_json`` (no NaN or Infinity, bounded numbers, depth and size), ``safe_yaml`` (depth, aliases,
tags and duplicate keys checked while parsing), ``text`` (terminal- and Markdown-safe rendering of what was read),
``quantity`` (Kubernetes quantities, by their grammar)
and ``http_client`` (the one HTTP GET: bounded size and total time, verified TLS, proxies from the environment,
https-only redirects, no credential in any error). It imports nothing of gpupools but ``gpupools.errors``;
the modules are imported one by one (this file imports none) so a reader pays only for what it uses.
"""
