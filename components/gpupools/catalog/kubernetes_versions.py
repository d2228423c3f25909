"""The Kubernetes minors each cloud offers for new clusters and node pools, with the dates their support ends.

A version outside the cloud's row is refused before anything is created (``1.99`` or ``1.10`` would only fail at
deploy). Rows are the sources' lists when read, with standard and extended (EKS) or LTS (AKS) support counted:
a row past its end date stays until the table is bumped, and the cloud then refuses it itself.

- AKS: aks-docs ``articles/aks/supported-kubernetes-versions.md``, "AKS Kubernetes release calendar" and "LTS
  versions" (read with 1.36 GA Jun 2026, 1.37 in preview; the sources row names the columns).
- EKS: endoflife.date ``amazon-eks`` (read Feb 2026, 1.35 released 28 Jan 2026), the 1.36 release note, and the
  EKS user guide "Understand the Kubernetes version lifecycle on EKS": "standard support ... 14 months ... extended
  support for the next 12 months", "You can create new Amazon EKS clusters on any version offered in standard or
  extended support".
"""

from __future__ import annotations

# minor -> (generally available on the cloud, end of LTS / extended support), as the sources print them.
AKS_MINORS: dict[str, tuple[str, str]] = {
    "1.29": ("Mar 2024", "Apr 2026"),
    "1.30": ("Jul 2024", "Jul 2026"),
    "1.31": ("Nov 2024", "Nov 2026"),
    "1.32": ("Apr 2025", "Mar 2027"),
    "1.33": ("Jun 2025", "Jul 2027"),
    "1.34": ("Nov 2025", "Nov 2027"),
    "1.35": ("Mar 2026", "Mar 2028"),
    "1.36": ("Jun 2026", "Jun 2028"),
}
EKS_MINORS: dict[str, tuple[str, str]] = {
    "1.29": ("2024-01-23", "2026-03-23"),
    "1.30": ("2024-05-23", "2026-07-23"),
    "1.31": ("2024-09-26", "2026-11-26"),
    "1.32": ("2025-01-23", "2027-03-23"),
    "1.33": ("2025-05-28", "2027-07-29"),
    "1.34": ("2025-10-06", "2027-12-02"),
    "1.35": ("2026-01-28", "2028-03-27"),
    # EKS user guide "Review release notes for Kubernetes versions on standard support" (2026-06-02): "Kubernetes 1.36
    # is now available in Amazon EKS"; its end: 14 + 12 months later, by the lifecycle rule above.
    "1.36": ("2026-06-02", "2028-08-02"),
}
