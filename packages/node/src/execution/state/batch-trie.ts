import { type Input, RLP } from "@ethereumjs/rlp";
import { bytesToHex, equalsBytes } from "@ethereumjs/util";

/** Where trie nodes live: read by hash, written by hash. */
export interface TrieNodeStore {
  get(hash: Uint8Array): Promise<Uint8Array | undefined>;
  put(hash: Uint8Array, node: Uint8Array): Promise<void>;
}

type Keccak = (data: Uint8Array) => Uint8Array;
type Nibbles = number[];
/** A child slot: an in-memory node, or the hash of a stored node that has not been loaded. */
type Child = TrieNode | Uint8Array;
type TrieNode =
  | { kind: "leaf"; path: Nibbles; value: Uint8Array }
  | { kind: "extension"; path: Nibbles; child: Child }
  | BranchNode;
/** Sixteen child slots, one per nibble, and the value of the key ending here. */
type BranchNode = { kind: "branch"; children: (Child | undefined)[]; value: Uint8Array | undefined };
/** A node as nested byte strings (the shape RLP encodes). */
type RawNode = Uint8Array | RawNode[];
type Load = (child: Child) => Promise<TrieNode>;

const EMPTY_RLP = RLP.encode(new Uint8Array());

/**
 * Applies `updates` (key -> new value; an empty value deletes the key) to the trie whose root hash is
 * `root`, writing every new node of 32 bytes or more (and the root) to `store` by its keccak-256 hash,
 * and returns the new root hash. Later updates of the same key win. Keys are used as given (callers
 * pass already-hashed keys for a secure trie).
 */
export async function updateTrie(
  root: Uint8Array,
  updates: Iterable<readonly [key: Uint8Array, value: Uint8Array]>,
  store: TrieNodeStore,
  keccak: (data: Uint8Array) => Uint8Array,
): Promise<Uint8Array> {
  const emptyRoot = keccak(EMPTY_RLP);
  const load: Load = async (child) => {
    if (!(child instanceof Uint8Array)) return child;
    const encoded = await store.get(child);
    if (encoded === undefined) throw new Error(`Missing trie node ${bytesToHex(child)}`);
    return decodeNode(RLP.decode(encoded) as RawNode);
  };
  let top: Child | undefined = equalsBytes(root, emptyRoot) ? undefined : root;
  for (const [key, value] of updates) {
    const path = toNibbles(key);
    top = value.length === 0 ? await remove(top, path, load) : await insert(top, path, value, load);
  }
  if (top === undefined) return emptyRoot;
  if (top instanceof Uint8Array) return top;
  const writes: [Uint8Array, Uint8Array][] = [];
  const encoded = RLP.encode(toRaw(top, keccak, writes) as Input);
  const newRoot = keccak(encoded);
  writes.push([newRoot, encoded]);
  for (const [hash, node] of writes) await store.put(hash, node);
  return newRoot;
}

/** Sets `path` to `value` below `child`; returns `child` itself when nothing changes. */
async function insert(
  child: Child | undefined,
  path: Nibbles,
  value: Uint8Array,
  load: Load,
): Promise<Child> {
  if (child === undefined) return { kind: "leaf", path, value };
  const node = await load(child);
  if (node.kind === "branch") {
    if (path.length === 0) {
      return node.value !== undefined && equalsBytes(node.value, value) ? child : { ...node, value };
    }
    const slot = node.children[path[0]!];
    const updated = await insert(slot, path.slice(1), value, load);
    return updated === slot ? child : withChild(node, path[0]!, updated);
  }
  const common = commonPrefixLength(node.path, path);
  if (node.kind === "leaf" && common === node.path.length && common === path.length) {
    return equalsBytes(node.value, value) ? child : { kind: "leaf", path, value };
  }
  if (node.kind === "extension" && common === node.path.length) {
    const updated = await insert(node.child, path.slice(common), value, load);
    if (updated === node.child) return child;
    return { kind: "extension", path: node.path, child: updated };
  }
  // The paths diverge after `common` nibbles: both continue below a new branch.
  const children = new Array<Child | undefined>(16).fill(undefined);
  let branch: Child = { kind: "branch", children, value: undefined };
  if (node.kind === "leaf") {
    branch = await insert(branch, node.path.slice(common), node.value, load);
  } else {
    const rest = node.path.slice(common + 1);
    children[node.path[common]!] =
      rest.length > 0 ? { kind: "extension", path: rest, child: node.child } : node.child;
  }
  branch = await insert(branch, path.slice(common), value, load);
  return common > 0 ? { kind: "extension", path: path.slice(0, common), child: branch } : branch;
}

/** Deletes `path` below `child`, restoring canonical shape; returns `child` itself when the key is absent. */
async function remove(child: Child | undefined, path: Nibbles, load: Load): Promise<Child | undefined> {
  if (child === undefined) return undefined;
  const node = await load(child);
  if (node.kind === "leaf") return nibblesEqual(node.path, path) ? undefined : child;
  if (node.kind === "extension") {
    if (commonPrefixLength(node.path, path) < node.path.length) return child;
    const updated = await remove(node.child, path.slice(node.path.length), load);
    if (updated === node.child) return child;
    return updated === undefined ? undefined : withPrefix(node.path, await load(updated));
  }
  let branch: BranchNode;
  if (path.length === 0) {
    if (node.value === undefined) return child;
    branch = { ...node, value: undefined };
  } else {
    const slot = node.children[path[0]!];
    const updated = await remove(slot, path.slice(1), load);
    if (updated === slot) return child;
    branch = withChild(node, path[0]!, updated);
  }
  const occupied = branch.children.flatMap((slot, nibble) => (slot === undefined ? [] : [nibble]));
  if (occupied.length + (branch.value === undefined ? 0 : 1) > 1) return branch;
  if (branch.value !== undefined) return { kind: "leaf", path: [], value: branch.value };
  const only = occupied[0]!;
  return withPrefix([only], await load(branch.children[only]!));
}

/** A copy of `branch` with one child slot replaced (nodes are never mutated, so unchanged subtrees keep their hash). */
function withChild(branch: BranchNode, nibble: number, child: Child | undefined): BranchNode {
  const children = [...branch.children];
  children[nibble] = child;
  return { ...branch, children };
}

/** `node` reached through `prefix` more nibbles, merging the paths of leaves and extensions. */
function withPrefix(prefix: Nibbles, node: TrieNode): TrieNode {
  if (node.kind === "branch") return { kind: "extension", path: prefix, child: node };
  return { ...node, path: [...prefix, ...node.path] };
}

/** The raw form of `node`, with children referenced inline when under 32 bytes, else by a hash queued in `writes`. */
function toRaw(node: TrieNode, keccak: Keccak, writes: [Uint8Array, Uint8Array][]): RawNode {
  const reference = (child: Child | undefined): RawNode => {
    if (child === undefined) return new Uint8Array();
    if (child instanceof Uint8Array) return child;
    const raw = toRaw(child, keccak, writes);
    const encoded = RLP.encode(raw as Input);
    if (encoded.length < 32) return raw;
    const hash = keccak(encoded);
    writes.push([hash, encoded]);
    return hash;
  };
  if (node.kind === "leaf") return [compactPath(node.path, true), node.value];
  if (node.kind === "extension") return [compactPath(node.path, false), reference(node.child)];
  return [...node.children.map(reference), node.value ?? new Uint8Array()];
}

/** The in-memory form of a decoded node; embedded children are decoded too, hashed ones stay hashes. */
function decodeNode(raw: RawNode): TrieNode {
  if (!Array.isArray(raw) || (raw.length !== 2 && raw.length !== 17)) throw new Error("Invalid trie node");
  const child = (item: RawNode): Child | undefined => {
    if (Array.isArray(item)) return decodeNode(item);
    return item.length === 0 ? undefined : item;
  };
  if (raw.length === 17) {
    const value = raw[16] as Uint8Array;
    return {
      kind: "branch",
      children: raw.slice(0, 16).map(child),
      value: value.length > 0 ? value : undefined,
    };
  }
  const compact = raw[0] as Uint8Array;
  const flag = compact[0]! >> 4;
  const path = toNibbles(compact.subarray(1));
  if (flag & 1) path.unshift(compact[0]! & 15);
  if (flag & 2) return { kind: "leaf", path, value: raw[1] as Uint8Array };
  return { kind: "extension", path, child: child(raw[1]!)! };
}

/** Hex-prefix encoding of a nibble path (Yellow Paper appendix C). */
function compactPath(nibbles: Nibbles, leaf: boolean): Uint8Array {
  const odd = nibbles.length % 2;
  const out = new Uint8Array(Math.floor(nibbles.length / 2) + 1);
  out[0] = (((leaf ? 2 : 0) + odd) << 4) | (odd ? nibbles[0]! : 0);
  for (let i = odd, o = 1; i < nibbles.length; i += 2, o++) out[o] = (nibbles[i]! << 4) | nibbles[i + 1]!;
  return out;
}

function toNibbles(bytes: Uint8Array): Nibbles {
  const out: Nibbles = [];
  for (const byte of bytes) out.push(byte >> 4, byte & 15);
  return out;
}

function commonPrefixLength(a: Nibbles, b: Nibbles): number {
  let length = 0;
  while (length < a.length && length < b.length && a[length] === b[length]) length++;
  return length;
}

function nibblesEqual(a: Nibbles, b: Nibbles): boolean {
  return a.length === b.length && commonPrefixLength(a, b) === a.length;
}
