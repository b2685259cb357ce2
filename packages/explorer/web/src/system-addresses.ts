import {
  DEPIN_REGISTRY_ADDRESS,
  PRICE_ORACLE_ADDRESS,
  STAKING_ADDRESS,
  SYSTEM_ADDRESS,
} from "@strata/contracts/constants";

/** What a protocol address is, for people: its name and one line on what it does. */
export interface SystemAddress {
  readonly name: string;
  readonly description: string;
}

const SYSTEM_ADDRESSES = new Map<string, SystemAddress>([
  [
    STAKING_ADDRESS.toLowerCase(),
    { name: "Staking", description: "System contract: validators, delegations and rewards" },
  ],
  [
    DEPIN_REGISTRY_ADDRESS.toLowerCase(),
    { name: "DePINRegistry", description: "System contract: DePIN devices and their heartbeats" },
  ],
  [
    PRICE_ORACLE_ADDRESS.toLowerCase(),
    { name: "PriceOracle", description: "System contract: prices written by authorised reporters" },
  ],
  [
    SYSTEM_ADDRESS.toLowerCase(),
    {
      name: "System caller",
      description: "Caller of the per-block system calls; its balance is the epoch's reward pot",
    },
  ],
]);

/** The protocol's name for `address` (a system contract or the system caller), if it has one. */
export function systemAddress(address: string | null | undefined): SystemAddress | undefined {
  return address ? SYSTEM_ADDRESSES.get(address.toLowerCase()) : undefined;
}
