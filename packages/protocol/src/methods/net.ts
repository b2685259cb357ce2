import { z } from "zod";
import { Bytes } from "../schemas.js";
import { method } from "./define.js";
import { BoolResult, HexResult } from "./results.js";

/** The `net_` namespace: the chain id and the p2p network's peers. */
export const netMethods = {
  net_version: method({ params: [], required: 0, result: z.string() }),
  net_listening: method({ params: [], required: 0, result: BoolResult }),
  net_peerCount: method({ params: [], required: 0, result: HexResult }),
};

/** The `web3_` namespace. */
export const web3Methods = {
  web3_clientVersion: method({ params: [], required: 0, result: z.string() }),
  web3_sha3: method({ params: [Bytes], required: 1, result: HexResult }),
};
