import { gossipsub } from "@chainsafe/libp2p-gossipsub";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { identify } from "@libp2p/identify";
import type { Libp2p, PubSub } from "@libp2p/interface";
import { tcp } from "@libp2p/tcp";
import { createLibp2p } from "libp2p";
import { keccak256 } from "../crypto/keccak.js";
import { readOneFrame, writeFrames } from "../network/streams.js";
import { encodeStatus, PROTOCOLS, type Status } from "../network/wire.js";

/**
 * A libp2p host that speaks Strata's wire format for tests of hostile peers: TCP on 127.0.0.1,
 * gossipsub with the node's message ids, and a status handler answering `status()` (it claims the
 * chain it attacks, so only its messages give it away).
 */
export async function createHostileHost(status: () => Status): Promise<Libp2p<{ pubsub: PubSub }>> {
  const host = (await createLibp2p({
    addresses: { listen: ["/ip4/127.0.0.1/tcp/0"] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: {
      identify: identify(),
      pubsub: gossipsub({
        globalSignaturePolicy: "StrictNoSign",
        msgIdFn: (message) => keccak256(message.data),
        allowPublishToZeroTopicPeers: true,
      }),
    },
  })) as unknown as Libp2p<{ pubsub: PubSub }>;
  await host.handle(PROTOCOLS.status, async ({ stream }) => {
    await readOneFrame(stream, 1024, 5_000);
    await writeFrames(stream, [encodeStatus(status())]);
  });
  return host;
}
