import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from "@libp2p/crypto/keys";
import type { PrivateKey } from "@libp2p/interface";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";

/** File in the datadir that holds the node's p2p private key (protobuf-encoded Ed25519, hex). */
export const P2P_KEY_FILE = "p2p-key";

/** A node's peer-to-peer identity: its private key and the peer id derived from it. */
export interface P2PIdentity {
  readonly privateKey: PrivateKey;
  /** The peer id as it appears in multiaddrs (`/p2p/<peer id>`). */
  readonly peerId: string;
}

/**
 * The p2p identity kept in `datadir` (created on first use, file mode 0600), so a node keeps its peer
 * id across restarts and bootnode addresses stay valid; a node without a datadir gets a fresh one.
 */
export async function loadP2PIdentity(datadir: string | null): Promise<P2PIdentity> {
  if (datadir === null) return identityOf((await generateKeyPair("Ed25519")) as unknown as PrivateKey);
  const file = join(datadir, P2P_KEY_FILE);
  if (existsSync(file)) {
    const hex = readFileSync(file, "utf8").trim();
    if (!/^[0-9a-f]+$/i.test(hex)) throw new Error(`${file} does not hold a hex-encoded p2p key`);
    return identityOf(privateKeyFromProtobuf(Buffer.from(hex, "hex")) as unknown as PrivateKey);
  }
  const key = await generateKeyPair("Ed25519");
  mkdirSync(datadir, { recursive: true });
  writeFileSync(file, `${Buffer.from(privateKeyToProtobuf(key)).toString("hex")}\n`, { mode: 0o600 });
  return identityOf(key as unknown as PrivateKey);
}

function identityOf(privateKey: PrivateKey): P2PIdentity {
  return { privateKey, peerId: peerIdFromPrivateKey(privateKey).toString() };
}
