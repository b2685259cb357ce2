import { Bytes, toData } from "@strata/protocol";
import { keccak256 } from "../../crypto/keccak.js";
import { defineMethod } from "../registry.js";

/** The `net_` namespace: a standalone node has no peers. */
export const netMethods = {
  net_version: defineMethod({
    params: [],
    required: 0,
    handler: (_, services) => String(services.config.network.chainId),
  }),
  net_listening: defineMethod({ params: [], required: 0, handler: () => true }),
  net_peerCount: defineMethod({ params: [], required: 0, handler: () => "0x0" }),
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
