import { toData } from "@strata/protocol";
import { keccak256 } from "../../crypto/keccak.js";
import { defineMethods } from "../registry.js";

/** The `net_` namespace: peers of the p2p network (none, and not listening, when p2p is off). */
export const netMethods = defineMethods({
  net_version: (_, services) => String(services.config.network.chainId),
  net_listening: (_, services) => services.network?.listening ?? false,
  net_peerCount: (_, services) => `0x${(services.network?.peerCount ?? 0).toString(16)}`,
});

/** The `web3_` namespace. */
export const web3Methods = defineMethods({
  web3_clientVersion: (_, services) => services.clientVersion,
  web3_sha3: ([data]) => toData(keccak256(Buffer.from(data.slice(2), "hex"))),
});
