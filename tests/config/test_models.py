"""The config models' literal types agree with the catalog tables they spell out for type checkers."""

from __future__ import annotations

from typing import get_args

from gpupools.catalog.chart_refs import CLUSTER_AUTOSCALER_EXPANDERS
from gpupools.config import models


def test_expander_literal_is_the_catalog_list() -> None:
    assert get_args(models.Expander) == CLUSTER_AUTOSCALER_EXPANDERS
    field = models.ClusterAutoscalerConfig.model_fields["expander"]
    assert get_args(field.annotation) == CLUSTER_AUTOSCALER_EXPANDERS
