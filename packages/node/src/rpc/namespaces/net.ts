import { Bytes, toData } from "@strata/protocol";
import { keccak256 } from "../../crypto/keccak.js";
import { defineMethod } from "../registry.js";

/** The `net_` namespace: peers of the p2p network (none, and not listening, when p2p is off). */
export const netMethods = {
  net_version: defineMethod({
    params: [],
    required: 0,
    handler: (_, services) => String(services.config.network.chainId),
  }),
  net_listening: defineMethod({
    params: [],
    required: 0,
    handler: (_, services) => services.network?.listening ?? false,
  }),
  net_peerCount: defineMethod({
    params: [],
    required: 0,
    handler: (_, services) => `0x${(services.network?.peerCount ?? 0).toString(16)}`,
  }),
};

/** The `web3_` namespace. */
export const web3Methods = {
  web3_clientVersion: defineMethod({
    params: [],
    required: 0,
    handler: (_, services) => services.clientVersion,
  }),
  web3_sha3: defineMethod({
    params: [Bytes],
    required: 1,
    handler: ([data]) => toData(keccak256(Buffer.from(data.slice(2), "hex"))),
  }),
};
