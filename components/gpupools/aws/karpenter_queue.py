"""Karpenter's interruption queue: an SQS queue that EventBridge fills with the EC2 events that take nodes away.

As the Karpenter v1.14 getting-started ``cloudformation.yaml`` has it (read 2026-11-28 at 1d927085dd81): messages kept
300 s, SQS-managed encryption, a policy letting EventBridge and SQS send and refusing plain HTTP, and one rule per
event (AWS Health scheduled changes, Spot interruption warnings, rebalance recommendations, instance state changes,
capacity reservation interruptions). The chart reads the queue's name as ``settings.interruptionQueue``, so
Karpenter drains a node before EC2 takes it. The builders are pure; ``interruption_queue`` registers.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_aws as aws

MESSAGE_RETENTION_SECONDS = 300
# (rule name suffix, source, detail-type): cloudformation.yaml's five rules.
INTERRUPTION_EVENTS = (
    ("scheduled-change", "aws.health", "AWS Health Event"),
    ("spot-interruption", "aws.ec2", "EC2 Spot Instance Interruption Warning"),
    ("rebalance", "aws.ec2", "EC2 Instance Rebalance Recommendation"),
    ("instance-state-change", "aws.ec2", "EC2 Instance State-change Notification"),
    ("capacity-reservation-interruption", "aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"),
)


def queue_policy(queue_arn: str) -> dict[str, Any]:
    return {
        "Version": "2012-10-17",
        "Id": "EC2InterruptionPolicy",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": ["events.amazonaws.com", "sqs.amazonaws.com"]},
                "Action": "sqs:SendMessage",
                "Resource": queue_arn,
            },
            {
                "Sid": "DenyHTTP",
                "Effect": "Deny",
                "Action": "sqs:*",
                "Resource": queue_arn,
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                "Principal": "*",
            },
        ],
    }


def event_pattern(source: str, detail_type: str) -> dict[str, list[str]]:
    return {"source": [source], "detail-type": [detail_type]}


def interruption_queue(
    name: str, queue_name: pulumi.Input[str], parent: pulumi.Resource, tags: dict[str, str] | None = None
) -> aws.sqs.Queue:
    """The queue, its policy, and one EventBridge rule with the queue as target per interruption event."""
    child = pulumi.ResourceOptions(parent=parent)
    queue = aws.sqs.Queue(
        f"{name}-queue",
        name=queue_name,
        message_retention_seconds=MESSAGE_RETENTION_SECONDS,
        sqs_managed_sse_enabled=True,
        tags=tags or {},
        opts=child,
    )
    aws.sqs.QueuePolicy(
        f"{name}-queue-policy",
        queue_url=queue.url,
        policy=queue.arn.apply(lambda arn: json.dumps(queue_policy(arn))),
        opts=pulumi.ResourceOptions(parent=queue),
    )
    for suffix, source, detail_type in INTERRUPTION_EVENTS:
        rule = aws.cloudwatch.EventRule(
            f"{name}-{suffix}",
            event_pattern=json.dumps(event_pattern(source, detail_type)),
            tags=tags or {},
            opts=pulumi.ResourceOptions(parent=queue),
        )
        aws.cloudwatch.EventTarget(
            f"{name}-{suffix}-target",
            rule=rule.name,
            arn=queue.arn,
            target_id="KarpenterInterruptionQueueTarget",
            opts=pulumi.ResourceOptions(parent=rule),
        )
    return queue
