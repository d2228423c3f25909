"""Every region and location the clouds list, for checking ``cluster.region`` / ``cluster.location`` by name.

- AWS: botocore 1.44.8 (PyPI, published 2026-11-20) ``botocore/data/endpoints.json``, ``partitions[].regions``:
  the regions the AWS SDKs know, by partition. Read on 2026-11-26 (``pip download --no-deps botocore``).
- Azure: the ARM ``GET /subscriptions/{id}/locations?api-version=2022-12-01`` answer recorded by Azure/azure-cli
  ``src/azure-cli/azure/cli/command_modules/resource/tests/latest/recordings/test_list_locations.yaml`` @ 2de75631b19f
  (response dated 2025-02-22): the physical locations (``metadata.regionType: Physical``). Locations opened after
  that day and seen only in later public ``az account list-locations`` output (no primary machine-readable
  source) are ``AZURE_SEEN_LATER``; the sovereign clouds' are from Azure/azure-sdk-for-net
  ``sdk/core/Azure.Core/src/AzureLocation.cs`` @ 0936c5964be9. A location missing here is refused with the
  nearest names; a new one needs a row here (``docs/sources.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import ClassVar

AWS_SOURCE = "botocore 1.44.8 (PyPI, 2026-11-20) botocore/data/endpoints.json"
AWS_READ_ON = date(2026, 11, 20)
AZURE_SOURCE = (
    "Azure/azure-cli resource/tests/latest/recordings/test_list_locations.yaml @ 2de75631b19f (ARM list-locations, "
    "2025-02-22)"
)
AZURE_READ_ON = date(2025, 2, 22)

# (AWS partition, region -> description), in endpoints.json's order.
AWS_PARTITIONS: tuple[tuple[str, dict[str, str]], ...] = (
    (
        "aws",
        {
            "af-south-1": "Africa (Cape Town)",
            "ap-east-1": "Asia Pacific (Hong Kong)",
            "ap-east-2": "Asia Pacific (Taipei)",
            "ap-northeast-1": "Asia Pacific (Tokyo)",
            "ap-northeast-2": "Asia Pacific (Seoul)",
            "ap-northeast-3": "Asia Pacific (Osaka)",
            "ap-south-1": "Asia Pacific (Mumbai)",
            "ap-south-2": "Asia Pacific (Hyderabad)",
            "ap-southeast-1": "Asia Pacific (Singapore)",
            "ap-southeast-2": "Asia Pacific (Sydney)",
            "ap-southeast-3": "Asia Pacific (Jakarta)",
            "ap-southeast-4": "Asia Pacific (Melbourne)",
            "ap-southeast-5": "Asia Pacific (Malaysia)",
            "ap-southeast-6": "Asia Pacific (New Zealand)",
            "ap-southeast-7": "Asia Pacific (Thailand)",
            "ca-central-1": "Canada (Central)",
            "ca-west-1": "Canada West (Calgary)",
            "eu-central-1": "Europe (Frankfurt)",
            "eu-central-2": "Europe (Zurich)",
            "eu-north-1": "Europe (Stockholm)",
            "eu-south-1": "Europe (Milan)",
            "eu-south-2": "Europe (Spain)",
            "eu-west-1": "Europe (Ireland)",
            "eu-west-2": "Europe (London)",
            "eu-west-3": "Europe (Paris)",
            "il-central-1": "Israel (Tel Aviv)",
            "me-central-1": "Middle East (UAE)",
            "me-south-1": "Middle East (Bahrain)",
            "mx-central-1": "Mexico (Central)",
            "sa-east-1": "South America (Sao Paulo)",
            "us-east-1": "US East (N. Virginia)",
            "us-east-2": "US East (Ohio)",
            "us-west-1": "US West (N. California)",
            "us-west-2": "US West (Oregon)",
        },
    ),
    (
        "aws-cn",
        {
            "cn-north-1": "China (Beijing)",
            "cn-northwest-1": "China (Ningxia)",
        },
    ),
    (
        "aws-us-gov",
        {
            "us-gov-east-1": "AWS GovCloud (US-East)",
            "us-gov-west-1": "AWS GovCloud (US-West)",
        },
    ),
    (
        "aws-iso",
        {
            "us-iso-east-1": "US ISO East",
            "us-iso-west-1": "US ISO WEST",
        },
    ),
    (
        "aws-iso-b",
        {
            "us-isob-east-1": "US ISOB East (Ohio)",
            "us-isob-west-1": "US ISOB West",
        },
    ),
    (
        "aws-iso-e",
        {
            "eu-isoe-west-1": "EU ISOE West",
        },
    ),
    (
        "aws-iso-f",
        {
            "us-isof-east-1": "US ISOF EAST",
            "us-isof-south-1": "US ISOF SOUTH",
        },
    ),
    (
        "aws-eusc",
        {
            "eusc-de-east-1": "AWS European Sovereign Cloud (Germany)",
        },
    ),
)
# Azure public-cloud physical location -> display name (list-locations, 2025-02-22).
AZURE_LOCATIONS: dict[str, str] = {
    "eastus": "East US",
    "southcentralus": "South Central US",
    "westus2": "West US 2",
    "westus3": "West US 3",
    "australiaeast": "Australia East",
    "southeastasia": "Southeast Asia",
    "northeurope": "North Europe",
    "swedencentral": "Sweden Central",
    "uksouth": "UK South",
    "westeurope": "West Europe",
    "centralus": "Central US",
    "southafricanorth": "South Africa North",
    "centralindia": "Central India",
    "eastasia": "East Asia",
    "japaneast": "Japan East",
    "koreacentral": "Korea Central",
    "newzealandnorth": "New Zealand North",
    "canadacentral": "Canada Central",
    "francecentral": "France Central",
    "germanywestcentral": "Germany West Central",
    "italynorth": "Italy North",
    "norwayeast": "Norway East",
    "polandcentral": "Poland Central",
    "spaincentral": "Spain Central",
    "switzerlandnorth": "Switzerland North",
    "mexicocentral": "Mexico Central",
    "uaenorth": "UAE North",
    "brazilsouth": "Brazil South",
    "israelcentral": "Israel Central",
    "qatarcentral": "Qatar Central",
    "brazilus": "Brazil US",  # canary/stage/restricted location, not for general use
    "eastus2": "East US 2",
    "eastusstg": "East US STG",  # canary/stage/restricted location, not for general use
    "northcentralus": "North Central US",
    "westus": "West US",
    "japanwest": "Japan West",
    "jioindiawest": "Jio India West",
    "centraluseuap": "Central US EUAP",  # canary/stage/restricted location, not for general use
    "eastus2euap": "East US 2 EUAP",  # canary/stage/restricted location, not for general use
    "southcentralusstg": "South Central US STG",  # canary/stage/restricted location, not for general use
    "westcentralus": "West Central US",
    "southafricawest": "South Africa West",
    "australiacentral": "Australia Central",
    "australiacentral2": "Australia Central 2",
    "australiasoutheast": "Australia Southeast",
    "jioindiacentral": "Jio India Central",
    "koreasouth": "Korea South",
    "southindia": "South India",
    "westindia": "West India",
    "canadaeast": "Canada East",
    "francesouth": "France South",
    "germanynorth": "Germany North",
    "norwaywest": "Norway West",
    "switzerlandwest": "Switzerland West",
    "ukwest": "UK West",
    "uaecentral": "UAE Central",
    "brazilsoutheast": "Brazil Southeast",
}
# Opened after 2025-02-22; seen in later public list-locations output, no primary machine-readable source.
AZURE_SEEN_LATER: dict[str, str] = {
    "indonesiacentral": "Indonesia Central",
    "malaysiawest": "Malaysia West",
    "chilecentral": "Chile Central",
    "austriaeast": "Austria East",
    "belgiumcentral": "Belgium Central",
}
# Azure China and Azure Government (AzureLocation.cs): other clouds of Azure, named as ARM spells them.
AZURE_SOVEREIGN: tuple[str, ...] = (
    "chinanorth",
    "chinaeast",
    "chinanorth2",
    "chinaeast2",
    "usgovvirginia",
    "usgoviowa",
    "usgovarizona",
    "usgovtexas",
    "usdodeast",
    "usdodcentral",
)


def aws_regions() -> dict[str, str]:
    """Every AWS region of every partition -> its description."""
    return {region: text for _, regions in AWS_PARTITIONS for region, text in regions.items()}


def azure_locations() -> dict[str, str]:
    """Every Azure location gpupools knows -> its display name."""
    sovereign = {name: "sovereign cloud" for name in AZURE_SOVEREIGN}
    return {**AZURE_LOCATIONS, **AZURE_SEEN_LATER, **sovereign}


@dataclass(frozen=True)
class Places:
    """The cloud's region (location) names, for checking the cluster's by name, and where the list comes from."""

    capability: ClassVar[str] = "region names"
    names: Mapping[str, str]  # region -> description
    source: str
    read_on: date
