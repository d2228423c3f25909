#!/usr/bin/env bash
# Does the stack exist in the state backend? Previews must never create stacks, so a pull request that
# adds Pulumi.<stack>.yaml before anyone has deployed it gets a notice and a skipped preview, not a failure.
# Usage: stack_exists.sh STACK_NAME   (the backend name, e.g. org/dev). Needs the pulumi CLI on PATH and
# either PULUMI_BACKEND_URL or PULUMI_ACCESS_TOKEN in the environment. Writes exists=true|false to
# $GITHUB_OUTPUT; any other failure (login, permissions, network) fails the step.
set -euo pipefail
name="${1:?usage: stack_exists.sh STACK_NAME}"
if [ -n "${PULUMI_BACKEND_URL:-}" ]; then
  pulumi login --non-interactive "$PULUMI_BACKEND_URL" >/dev/null
else
  pulumi login --non-interactive >/dev/null
fi
status=0
errors="$(pulumi stack select --non-interactive "$name" 2>&1 >/dev/null)" || status=$?
if [ "$status" -eq 0 ]; then
  echo "exists=true" >> "$GITHUB_OUTPUT"
  exit 0
fi
if grep -q "no stack named '" <<<"$errors"; then
  echo "::notice title=pulumi preview skipped ($name)::Stack $name does not exist in the backend yet. Previews never create stacks: the first deploy from main does."
  echo "exists=false" >> "$GITHUB_OUTPUT"
  exit 0
fi
printf '%s\n' "$errors" >&2
echo "::error title=pulumi stack select failed ($name)::See the log above."
exit "$status"
