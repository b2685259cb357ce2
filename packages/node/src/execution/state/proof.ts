import { getMerkleStateProof, type MerkleStateManager } from "@ethereumjs/statemanager";
import { type Address, bytesToBigInt, equalsBytes, KECCAK256_RLP } from "@ethereumjs/util";
import { type Hex, toData, toQuantity } from "@strata/protocol";

/** At most this many storage keys per `eth_getProof` request (geth's limit). */
export const MAX_PROOF_KEYS = 1024;

/** A storage key as requested: its 32 bytes and whether the request spelled all 32 of them. */
export interface StorageKeyRequest {
  readonly key: Uint8Array;
  readonly full: boolean;
}

/** One storage slot's value and its proof from the account's storage root (EIP-1186). */
export interface StorageProof {
  readonly key: Hex;
  readonly value: Hex;
  readonly proof: Hex[];
}

/** An account with its proof from the state root, and proofs of some of its slots (EIP-1186, geth's encoding). */
export interface AccountProof {
  readonly address: Hex;
  readonly accountProof: Hex[];
  readonly balance: Hex;
  readonly codeHash: Hex;
  readonly nonce: Hex;
  readonly storageHash: Hex;
  readonly storageProof: StorageProof[];
}

const ZERO_HASH = toData(new Uint8Array(32));

/**
 * Builds the EIP-1186 proof of `address` and `keys` in `state`, as geth answers it: an absent
 * account has a zero code hash and storage hash; slots of an account without storage have value
 * `0x0` and an empty proof; a key given with fewer than 32 bytes is echoed as a quantity.
 */
export async function buildAccountProof(
  state: MerkleStateManager,
  address: Address,
  keys: readonly StorageKeyRequest[],
): Promise<AccountProof> {
  const account = await state.getAccount(address);
  const hasStorage = account !== undefined && !equalsBytes(account.storageRoot, KECCAK256_RLP);
  const proof = await getMerkleStateProof(state, address, hasStorage ? keys.map((k) => k.key) : []);
  const storageProof = keys.map((request, i): StorageProof => {
    const key = request.full ? toData(request.key) : toQuantity(bytesToBigInt(request.key));
    const slot = hasStorage ? proof.storageProof[i] : undefined;
    if (!slot) return { key, value: "0x0", proof: [] };
    return { key, value: toQuantity(BigInt(slot.value === "0x" ? 0 : slot.value)), proof: slot.proof };
  });
  return {
    address: toData(address.bytes),
    accountProof: proof.accountProof,
    balance: toQuantity(account?.balance ?? 0n),
    codeHash: account ? toData(account.codeHash) : ZERO_HASH,
    nonce: toQuantity(account?.nonce ?? 0n),
    storageHash: account ? toData(account.storageRoot) : ZERO_HASH,
    storageProof,
  };
}

/**
 * Parses a storage key as geth does for `eth_getProof`: `0x` optional, odd length padded, at most
 * 32 bytes. Returns the problem as text when the key is unusable.
 */
export function parseStorageKey(text: string): StorageKeyRequest | string {
  let hex = text.startsWith("0x") || text.startsWith("0X") ? text.slice(2) : text;
  if (hex.length % 2 === 1) hex = `0${hex}`;
  if (hex.length > 64) return "storage key too long (want at most 32 bytes)";
  if (!/^[0-9a-fA-F]*$/.test(hex)) return "invalid hex in storage key";
  const key = new Uint8Array(32);
  key.set(Buffer.from(hex, "hex"), 32 - hex.length / 2);
  return { key, full: hex.length === 64 };
}
