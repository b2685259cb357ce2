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

/** A libp2p peer id (base58btc), as in a bootnode's `/p2p/<peer id>`. */
const PeerId = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,64}$/, "expected a peer id like 12D3KooW…");

/** TEST ONLY, served with `--test.peer-deny`: cutting a node off from peers, for partition tests. */
export const testPeerMethods = {
  test_setDeniedPeers: method({
    params: [z.array(PeerId).max(256)],
    required: 1,
    result: z.number().int(),
    summary:
      "TEST ONLY (--test.peer-deny): refuses the given peers and closes the connections to them; [] heals. Returns the connections closed.",
  }),
};
