#!/usr/bin/env bash
# After `pulumi up`: check the GPU slices on the live cluster with `gpupools verify`.
# Usage: verify_stack.sh STACK STACK_NAME, where STACK is the Pulumi.<STACK>.yaml name and STACK_NAME the
# backend's name for it (e.g. org/dev). Needs the pulumi CLI on PATH, PULUMI_BACKEND_URL or
# PULUMI_ACCESS_TOKEN, and the cloud credentials the kubeconfig's exec plugin uses (EKS).
# The kubeconfig is a secret output: it goes straight into a file only this user can read, is never
# printed, and is deleted when the script ends.
set -euo pipefail
stack="${1:?usage: verify_stack.sh STACK STACK_NAME}"
stack_name="${2:?usage: verify_stack.sh STACK STACK_NAME}"
if [ -n "${PULUMI_BACKEND_URL:-}" ]; then
  pulumi login --non-interactive "$PULUMI_BACKEND_URL" >/dev/null
else
  pulumi login --non-interactive >/dev/null
fi
umask 077
kubeconfig="$(mktemp "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/kubeconfig.XXXXXX")"
trap 'rm -f "$kubeconfig"' EXIT
pulumi stack output kubeconfig --show-secrets --non-interactive --stack "$stack_name" > "$kubeconfig"
if [ ! -s "$kubeconfig" ]; then
  echo "::error title=gpupools verify ($stack)::The stack has no kubeconfig output"
  exit 1
fi
.venv/bin/gpupools verify --stack "$stack" --kubeconfig "$kubeconfig" --timeout 900
