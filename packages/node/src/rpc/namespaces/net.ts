import { toData } from "@strata/protocol";
import { keccak256 } from "../../crypto/keccak.js";
import { DevOnlyError } from "../../errors/domain-errors.js";
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

/**
 * TEST ONLY: `test_setDeniedPeers([peerIds])` cuts the node off from those peers (no dial, no inbound
 * connection, current connections closed; `[]` lifts it) so that tests can partition a network.
 * Served only by a node started with `--test.peer-deny` (-32601 otherwise). docs/network.md.
 */
export const testPeerMethods = defineMethods({
  test_setDeniedPeers: async ([peers], services) => {
    const network = services.network;
    if (!services.config.p2p.testPeerDeny || !network)
      throw new DevOnlyError(
        "test_setDeniedPeers is served only by a p2p node started with --test.peer-deny",
      );
    return network.setDeniedPeers(peers);
  },
});
