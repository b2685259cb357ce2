import { type Input, RLP } from "@ethereumjs/rlp";

type Hash = (data: Uint8Array) => Uint8Array;
/** A trie node as nested byte strings (the shape RLP encodes). */
type NodeRef = Uint8Array | NodeRef[];

interface Entry {
  readonly nibbles: Uint8Array;
  readonly value: Uint8Array;
}

/**
 * The Merkle-Patricia root of a list keyed by `rlp(index)` (the transactions and receipts tries of a
 * block), built in one recursive pass over the sorted keys instead of one trie insertion per entry.
 * Equal to inserting every entry into an empty @ethereumjs/mpt trie.
 */
export function orderedTrieRoot(values: readonly Uint8Array[], keccak: Hash): Uint8Array {
  if (values.length === 0) return keccak(RLP.encode(new Uint8Array()));
  const entries: Entry[] = values.map((value, i) => ({ nibbles: toNibbles(RLP.encode(i)), value }));
  entries.sort((a, b) => compareNibbles(a.nibbles, b.nibbles));
  const root = RLP.encode(buildNode(entries, 0, keccak) as Input);
  return keccak(root);
}

/** Builds the node holding `entries`, which share their first `depth` nibbles; returns its structure. */
function buildNode(entries: readonly Entry[], depth: number, keccak: Hash): NodeRef {
  if (entries.length === 1) {
    const only = entries[0]!;
    return [compactPath(only.nibbles.subarray(depth), true), only.value];
  }
  const prefix = commonPrefixLength(entries, depth);
  if (prefix > 0) {
    const child = buildNode(entries, depth + prefix, keccak);
    return [
      compactPath(entries[0]!.nibbles.subarray(depth, depth + prefix), false),
      reference(child, keccak),
    ];
  }
  const branch: NodeRef[] = Array.from({ length: 17 }, () => new Uint8Array());
  let start = 0;
  while (start < entries.length) {
    const entry = entries[start]!;
    if (entry.nibbles.length === depth) {
      branch[16] = entry.value;
      start++;
      continue;
    }
    const nibble = entry.nibbles[depth]!;
    let end = start + 1;
    while (end < entries.length && entries[end]!.nibbles[depth] === nibble) end++;
    branch[nibble] = reference(buildNode(entries.slice(start, end), depth + 1, keccak), keccak);
    start = end;
  }
  return branch;
}

/** A child as its parent refers to it: inline when its encoding is under 32 bytes, else its hash. */
function reference(node: NodeRef, keccak: Hash): NodeRef {
  const encoded = RLP.encode(node as Input);
  return encoded.length < 32 ? node : keccak(encoded);
}

function commonPrefixLength(entries: readonly Entry[], depth: number): number {
  const first = entries[0]!.nibbles;
  const last = entries[entries.length - 1]!.nibbles;
  let length = 0;
  while (
    depth + length < first.length &&
    depth + length < last.length &&
    first[depth + length] === last[depth + length]
  ) {
    length++;
  }
  return length;
}

/** Hex-prefix encoding of a nibble path (Yellow Paper appendix C). */
function compactPath(nibbles: Uint8Array, leaf: boolean): Uint8Array {
  const odd = nibbles.length % 2 === 1;
  const flag = (leaf ? 2 : 0) + (odd ? 1 : 0);
  const out = new Uint8Array(Math.floor(nibbles.length / 2) + 1);
  let i = 0;
  if (odd) {
    out[0] = (flag << 4) | nibbles[0]!;
    i = 1;
  } else {
    out[0] = flag << 4;
  }
  for (let o = 1; i < nibbles.length; i += 2, o++) out[o] = (nibbles[i]! << 4) | nibbles[i + 1]!;
  return out;
}

function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[i * 2] = key[i]! >> 4;
    out[i * 2 + 1] = key[i]! & 15;
  }
  return out;
}

function compareNibbles(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
