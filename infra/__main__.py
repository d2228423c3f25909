"""The gpupools Pulumi program: validate the stack config, then build the cluster, GPU pools and NVIDIA software.

Only wiring lives here: every decision (sizes, MIG plans, labels, chart values, capacity) comes from the
``gpupools`` library, and each cloud's module is imported only for a stack on that cloud.
"""

import pulumi

from gpupools.config import ConfigError, load_stack
from stack_config import read_pulumi_config, secret_config_values

try:
    stack = load_stack(read_pulumi_config())
except ConfigError as error:
    # One line per problem, before any resource is registered; nothing existing is touched. Secret
    # values (pulumi config set --secret) never reach the console or CI logs, even when they are wrong.
    raise pulumi.RunError(f"invalid gpupools config:\n{error.redacted(secret_config_values())}") from None

if stack.cloud == "azure":
    import aks as cloud
else:
    import eks as cloud

import nvidia  # noqa: E402  (after the cloud module, which the program imports conditionally)
import outputs  # noqa: E402

cluster, pools = cloud.build(stack)
software = nvidia.install(stack, cluster.provider, pools)
nvidia.smoke_tests(stack, cluster.provider, software)
outputs.export(stack, cluster)
