"""Helm values of the charts gpupools installs, as pure functions of a validated ``Stack`` (``gpupools.domain``).

``device_plugin`` and ``gpu_operator`` build each installer's values, ``device_plugin_config`` and ``mig_parted``
render the config files those values embed, ``dcgm_exporter`` the metrics chart beside the device plugin,
``cluster_autoscaler`` the EKS autoscaler's values, and ``values`` picks the stack's charts. Which charts and
versions, and what they do by default, are facts in ``gpupools.catalog``.
"""
