"""A small copy of the scheduler's structured-parameters allocator, for tests: what Kubernetes 1.36 does with a
node's ResourceSlices and the claims of a pod that lands there.

It follows kubernetes ``staging/src/k8s.io/dynamic-resource-allocation/structured`` at tag ``kubernetes-1.36.2``
(published as kubernetes/dynamic-resource-allocation ``v0.36.2``, ``internal/stable/allocator_stable.go``;
docs/sources.md), for the features gpupools uses:

* each request is ``exactly`` one DeviceClass, ``allocationMode`` ``ExactCount`` (default, ``count`` default 1) or
  ``All``; ``All`` takes every matching device of the node and fails if one is in use or none matches;
* a device is selectable when every CEL selector of its class and of the request is true (``isSelectable``); the CEL
  ``device`` has ``driver``, ``attributes[<domain>]`` and ``capacity[<domain>]``; a CEL error fails the allocation;
* one device per request slot (``count: N`` needs N distinct devices); devices already allocated to other claims, or
  picked earlier in the same run, are skipped (``deviceInUse``);
* ``matchAttribute`` constraints: every device of the named requests (all when none are named) must carry the
  attribute (full ``domain/id``; the driver's own domain also as the bare id) with one same value, else it is not
  chosen (``matchAttributeConstraint.add``);
* depth-first over claims, requests and slots, pools then slices then devices in slice order, backtracking; the
  first complete solution wins; a claim with more than 32 devices is an error (``AllocationResultsMaxSize``).
  Unlike upstream, the slots of one request take devices in slice order only (each set tried once, not each
  ordering): the same first solution, and the same answer when there is none, without the factorial search.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any

import pytest

celpy = pytest.importorskip("celpy")  # a dev dependency; a test using the allocator skips without it

MAX_DEVICES_PER_CLAIM = 32  # kubernetes/api resource/v1 types.go AllocationResultsMaxSize


class AllocationError(Exception):
    """What upstream returns as an error (not "does not fit"): a bad claim or a CEL failure."""


@dataclass(frozen=True)
class Device:
    driver: str
    pool: str
    name: str
    attributes: dict[str, Any]  # qualified name -> typed value, as in the slice
    capacity: dict[str, Any]

    @property
    def id(self) -> tuple[str, str, str]:
        return (self.driver, self.pool, self.name)

    def cel(self) -> dict[str, Any]:
        """The CEL ``device`` variable: attributes and capacity grouped by domain (bare names: the driver's)."""
        attributes: dict[str, dict[str, Any]] = {}
        for key, typed in self.attributes.items():
            domain, _, ident = key.rpartition("/")
            attributes.setdefault(domain or self.driver, {})[ident] = next(iter(typed.values()))
        capacity: dict[str, dict[str, Any]] = {}
        for key, value in self.capacity.items():
            domain, _, ident = key.rpartition("/")
            capacity.setdefault(domain or self.driver, {})[ident] = value["value"]
        return {"driver": self.driver, "attributes": attributes, "capacity": capacity}

    def attribute(self, qualified: str) -> Any:
        """``lookupAttribute``: the full name, or for the driver's own domain the bare id; None when absent."""
        if qualified in self.attributes:
            return self.attributes[qualified]
        domain, _, ident = qualified.rpartition("/")
        if domain == self.driver and ident in self.attributes:
            return self.attributes[ident]
        return None


def devices_of(slices: list[dict[str, Any]], node: str) -> list[Device]:
    """The devices of the slices published for ``node``, pools in order, slices then devices in slice order."""
    found = []
    for piece in slices:
        spec = piece["spec"]
        if spec.get("nodeName") != node:
            continue
        for d in spec["devices"]:
            found.append(
                Device(spec["driver"], spec["pool"]["name"], d["name"], d.get("attributes", {}), d.get("capacity", {}))
            )
    return found


@functools.cache
def compiled(expression: str) -> Any:
    """The CEL program of ``expression``, compiled once per process: lark's parse costs more than the evaluations
    of a test, and a program keeps no state between them (each ``evaluate`` starts a new activation)."""
    env = celpy.Environment()
    return env.program(env.compile(expression))


@functools.cache
def selected(expressions: tuple[str, ...], name: str, variable: str) -> bool:
    """Whether the device ``name``, whose CEL ``device`` variable is the JSON ``variable``, passes every selector
    (in order, the first false one decides); a CEL error is the allocation's. Evaluated once per process for the
    same inputs: many tests put the same catalog devices before the same DeviceClasses."""
    variables = {"device": celpy.json_to_cel(json.loads(variable))}
    for expression in expressions:
        try:
            result = compiled(expression).evaluate(variables)
        except celpy.CELEvalError as error:
            raise AllocationError(f"CEL runtime error on {name}: {error}") from error
        if isinstance(result, celpy.CELEvalError):
            raise AllocationError(f"CEL runtime error on {name}: {result}")
        if not bool(result):
            return False
    return True


@dataclass
class _Slot:
    claim: int
    request: str
    selectors: list[Any]  # compiled CEL programs: the class's, then the request's
    key: tuple[str, ...] = ()  # their expressions: the cache key of isSelectable


@dataclass
class Allocator:
    """The allocator over one cluster's DeviceClasses (name -> object) and the devices already allocated."""

    classes: dict[str, dict[str, Any]]
    allocated: set[tuple[str, str, str]] = field(default_factory=set)
    _selectable_cache: dict[tuple[tuple[str, ...], tuple[str, str, str]], bool] = field(default_factory=dict)

    def _program(self, expression: str) -> Any:
        try:
            return compiled(expression)
        except celpy.CELParseError as error:
            raise AllocationError(f"CEL compile error: {expression}: {error}") from error

    def _selectable(self, slot: _Slot, device: Device) -> bool:
        """Cached per device and selectors, as upstream caches it per device and request."""
        key = (slot.key, device.id)
        if key not in self._selectable_cache:
            self._selectable_cache[key] = self._evaluate(slot, device)
        return self._selectable_cache[key]

    def _evaluate(self, slot: _Slot, device: Device) -> bool:
        return selected(slot.key, device.name, json.dumps(device.cel(), sort_keys=True))

    def allocate(
        self, node_devices: list[Device], claims: list[dict[str, Any]]
    ) -> list[list[tuple[str, Device]]] | None:
        """Per claim, its (request, device) results; None when the claims do not fit the node (not an error)."""
        slots: list[_Slot] = []
        all_requests: list[tuple[_Slot, list[Device]]] = []
        constraints: list[list[tuple[set[str], str]]] = []
        for ci, claim in enumerate(claims):
            spec = claim["spec"]["devices"]
            total = 0
            for request in spec["requests"]:
                exactly = request.get("exactly")
                if exactly is None:
                    raise AllocationError("only exactly requests are simulated")
                cls = self.classes.get(exactly["deviceClassName"])
                if cls is None:
                    raise AllocationError(f"DeviceClass {exactly['deviceClassName']} not found")
                expressions = [s["cel"]["expression"] for s in cls["spec"].get("selectors", [])]
                expressions += [s["cel"]["expression"] for s in exactly.get("selectors", [])]
                slot = _Slot(ci, request["name"], [self._program(e) for e in expressions], tuple(expressions))
                mode = exactly.get("allocationMode", "ExactCount")
                if mode == "All":
                    matching = [d for d in node_devices if self._selectable(slot, d)]
                    all_requests.append((slot, matching))
                    total += len(matching)
                elif mode == "ExactCount":
                    count = exactly.get("count", 1)
                    slots += [slot] * count
                    total += count
                else:
                    raise AllocationError(f"allocationMode {mode} is not a mode")
            if total > MAX_DEVICES_PER_CLAIM:
                raise AllocationError(f"claim {ci} asks for {total} devices, more than {MAX_DEVICES_PER_CLAIM}")
            constraints.append(
                [(set(k.get("requests") or []), k["matchAttribute"]) for k in spec.get("constraints", [])]
            )
        chosen: list[tuple[_Slot, Device]] = []
        for slot, matching in all_requests:  # All: every matching device, none in use, at least one
            if not matching or any(d.id in self.allocated for d in matching):
                return None
            for device in matching:
                if not self._fits_constraints(constraints[slot.claim], slot, device, chosen):
                    return None
                chosen.append((slot, device))
        if not self._search(node_devices, slots, 0, chosen, constraints):
            return None
        results: list[list[tuple[str, Device]]] = [[] for _ in claims]
        for slot, device in chosen:
            results[slot.claim].append((slot.request, device))
            self.allocated.add(device.id)
        return results

    def _search(
        self,
        devices: list[Device],
        slots: list[_Slot],
        i: int,
        chosen: list[tuple[_Slot, Device]],
        constraints: list[list[tuple[set[str], str]]],
    ) -> bool:
        if i == len(slots):
            return True
        slot = slots[i]
        taken = {d.id for _, d in chosen}
        first = 0
        if i > 0 and slots[i - 1] is slot:  # slots of one request are interchangeable: try each set once, in order
            first = devices.index(chosen[-1][1]) + 1
        for device in devices[first:]:
            if device.id in self.allocated or device.id in taken:
                continue
            if not self._selectable(slot, device):
                continue
            if not self._fits_constraints(constraints[slot.claim], slot, device, chosen):
                continue
            chosen.append((slot, device))
            if self._search(devices, slots, i + 1, chosen, constraints):
                return True
            chosen.pop()
        return False

    @staticmethod
    def _fits_constraints(
        claim_constraints: list[tuple[set[str], str]], slot: _Slot, device: Device, chosen: list[tuple[_Slot, Device]]
    ) -> bool:
        for requests, name in claim_constraints:
            if requests and slot.request not in requests:
                continue
            value = device.attribute(name)
            if value is None:
                return False
            for other_slot, other in chosen:
                if other_slot.claim != slot.claim or (requests and other_slot.request not in requests):
                    continue
                if other.attribute(name) != value:
                    return False
        return True
