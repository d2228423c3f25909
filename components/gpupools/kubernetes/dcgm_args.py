"""The arguments ``NvidiaDcgmExporter`` accepts, checked before it registers anything.

Same rules as the other NVIDIA chart components (``component_args.NvidiaChartArgsModel``): a DNS-1123
namespace (``config.names``) and an exact chart version, spelled as the dcgm-exporter Helm repository
publishes it (no ``v``, like the device plugin: ``4.8.2``). Pure: imports no Pulumi.
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

import pydantic
from pydantic import AfterValidator, Field

from ..charts.refs import DCGM_EXPORTER
from ..component_args import _Args, _dns_label, _input
from ..config.models import PINNED_VERSION

# The dcgm-exporter chart spells versions like the device plugin's chart: digits only, no "v".
DCGM_EXPORTER_VERSION = PINNED_VERSION["device-plugin"]


class NvidiaDcgmExporterArgsModel(_Args):
    version: _input(str)
    namespace: _input(Annotated[str, AfterValidator(_dns_label)])
    values: _input(dict[str, Any])
    timeout_seconds: Optional[_input(Annotated[int, Field(ge=1, le=86400)])] = None
    create_namespace: Optional[_input(bool)] = None

    @pydantic.field_validator("version")
    @classmethod
    def _pinned(cls, version: Any) -> Any:
        if isinstance(version, str) and not DCGM_EXPORTER_VERSION.match(version):
            raise ValueError(f"{version!r} is not an exact dcgm-exporter chart version; allowed: e.g. "
                             f"'{DCGM_EXPORTER.default_version}' ('latest' and ranges are refused)")
        return version
