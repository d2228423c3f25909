#!/usr/bin/env bash
# The pull request plan comment: the offline plan (Markdown) of every Pulumi.*.yaml stack of the head checkout
# (the working directory), each led by its GPU capacity diff against the base checkout.
#
# usage: plan_stacks.sh [BASE_DIR]   BASE_DIR holds the base commit with its own .venv (gpupools installed);
# without it, or when the base cannot plan a stack, the plan comes without a diff and says why. A stack that
# the base lacks is diffed against an empty plan: all of its capacity is new.
# GPUPOOLS names the head's gpupools executable (default .venv/bin/gpupools).
# Prints the comment body on stdout, its first line saying whether the pull request removes GPU capacity and what
# each compared stack adds or saves per month at list prices;
# exits 1 when a head plan failed (its error is in the body).
set -uo pipefail
base="${1:-}"
gpupools="${GPUPOOLS:-.venv/bin/gpupools}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
shopt -s nullglob
status=0
removing=()
costs=()
compared=0
for file in Pulumi.*.yaml; do
  stack="${file#Pulumi.}"
  stack="${stack%.yaml}"
  diff_args=()
  note=""
  if [ -n "$base" ] && [ -x "$base/.venv/bin/gpupools" ]; then
    if [ ! -f "$base/$file" ]; then
      printf '{"stack": "%s (new)", "capacity": []}\n' "$stack" > "$work/base.json"
      diff_args=(--base "$work/base.json")
    elif (cd "$base" && .venv/bin/gpupools plan --stack "$stack" --json) > "$work/base.json" 2> "$work/base.err"; then
      diff_args=(--base "$work/base.json")
    else
      note="_The base commit could not plan \`$stack\`, so there is no capacity diff: $(head -n 1 "$work/base.err")_"
    fi
  else
    note="_No base checkout to compare with: no capacity diff._"
  fi
  [ "${#diff_args[@]}" -gt 0 ] && compared=$((compared + 1))
  rc=0
  "$gpupools" plan --stack "$stack" --format markdown "${diff_args[@]}" > "$work/plan.out" 2> "$work/plan.err" || rc=$?
  if [ "$rc" -eq 0 ]; then
    # The stack's heading first, then why it has no diff (if so), then the rest of its plan.
    head -n 1 "$work/plan.out"
    [ -n "$note" ] && printf '\n%s\n' "$note"
    tail -n +2 "$work/plan.out"
    head -n 1 "$work/plan.out" | grep -q 'REMOVES GPU capacity' && removing+=("$stack")
    if [ "${#diff_args[@]}" -gt 0 ]; then  # the diff's first line ends with what it adds or saves per month
      first="$(head -n 1 "$work/plan.out")"
      first="${first%\*\*}"
      case "${first##*; }" in
        unpriced:*) ;;  # a stack without a region says so in its own heading, not in the first line
        *) costs+=("$stack ${first##*; }") ;;
      esac
    fi
  else
    status=1
    echo "### \`$stack\`: plan failed (exit $rc)"
    echo
    echo '```'
    cat "$work/plan.out"
    tail -n 40 "$work/plan.err"
    echo '```'
  fi
  echo
done > "$work/body.md"
cost=""
if [ "${#costs[@]}" -gt 0 ]; then
  cost=" List price: $(printf '%s, ' "${costs[@]}")"
  cost="${cost%, }."
fi
if [ "${#removing[@]}" -gt 0 ]; then
  echo "**:warning: This pull request REMOVES GPU capacity in: ${removing[*]}** (see each stack's diff below).$cost"
elif [ "$compared" -gt 0 ]; then
  echo "This pull request removes no GPU capacity (capacity diffs below).$cost"
else
  echo "No base plan to compare with: capacity changes are not shown."
fi
echo
cat "$work/body.md"
exit "$status"
