import { TestToken } from "@strata/contracts";
import { fromRlp, type Hex, keccak256, pad, toHex, toRlp } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount, rpc, viemClients } from "../../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../../testing/test-node.js";

type Proof = {
  address: Hex;
  accountProof: Hex[];
  balance: Hex;
  codeHash: Hex;
  nonce: Hex;
  storageHash: Hex;
  storageProof: { key: Hex; value: Hex; proof: Hex[] }[];
};

const EMPTY_TRIE_ROOT = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";
const ZERO_HASH = pad("0x0", { size: 32 });

async function result<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await rpc(url, method, params);
  expect(response.error, `${method} ${JSON.stringify(params)}`).toBeUndefined();
  return response.result as T;
}

function nibbles(hex: Hex): number[] {
  return [...hex.slice(2)].map((c) => Number.parseInt(c, 16));
}

/** The nibbles and leaf flag of a hex-prefix encoded path (Yellow Paper appendix C). */
function decodePath(encoded: Hex): { path: number[]; leaf: boolean } {
  const all = nibbles(encoded);
  const flag = all[0]!;
  return { path: all.slice(flag % 2 === 1 ? 1 : 2), leaf: flag >= 2 };
}

/**
 * Walks a Merkle-Patricia proof from `root` along keccak(key), checking every node's hash against
 * the reference to it, and returns the value at the end (undefined when the proof shows absence).
 */
function walkProof(root: Hex, key: Hex, proof: readonly Hex[]): Hex | undefined {
  const path = nibbles(keccak256(key));
  let expected: Hex | unknown[] = root;
  let at = 0;
  for (const [i, encoded] of proof.entries()) {
    if (typeof expected === "string") expect(keccak256(encoded), `node ${i}`).toBe(expected);
    else expect(encoded, `embedded node ${i}`).toBe(toRlp(expected as Hex[]));
    const node = fromRlp(encoded) as (Hex | unknown[])[];
    if (node.length === 17) {
      if (at === path.length) return node[16] as Hex;
      const child = node[path[at]!]!;
      at++;
      if (child === "0x") return undefined;
      expected = child;
      continue;
    }
    const { path: segment, leaf } = decodePath(node[0] as Hex);
    const matches = segment.every((n, j) => path[at + j] === n);
    if (!matches) return undefined;
    at += segment.length;
    if (leaf) return at === path.length ? (node[1] as Hex) : undefined;
    expected = node[1]!;
  }
  throw new Error("the proof ends before the key's value");
}

/** Checks an account proof against `stateRoot` and the account fields it claims. */
function verifyAccount(stateRoot: Hex, proof: Proof): void {
  const leaf = walkProof(stateRoot, proof.address, proof.accountProof);
  if (leaf === undefined) {
    expect(proof.balance).toBe("0x0");
    expect(proof.nonce).toBe("0x0");
    expect(proof.codeHash).toBe(ZERO_HASH);
    expect(proof.storageHash).toBe(ZERO_HASH);
    return;
  }
  const [nonce, balance, storageRoot, codeHash] = fromRlp(leaf) as Hex[];
  expect(nonce === "0x" ? 0n : BigInt(nonce!)).toBe(BigInt(proof.nonce));
  expect(balance === "0x" ? 0n : BigInt(balance!)).toBe(BigInt(proof.balance));
  expect(storageRoot).toBe(proof.storageHash);
  expect(codeHash).toBe(proof.codeHash);
}

/** Checks each storage proof against the account's storage root; returns the proven values. */
function verifyStorage(proof: Proof): bigint[] {
  return proof.storageProof.map((slot) => {
    const key = pad(toHex(BigInt(slot.key)), { size: 32 });
    const leaf = walkProof(proof.storageHash, key, slot.proof);
    const value = leaf === undefined ? 0n : BigInt(fromRlp(leaf) as Hex);
    expect(value).toBe(BigInt(slot.value));
    return value;
  });
}

describe("eth_getProof", () => {
  let t: TestNode;
  let token: Hex;
  const owner = devAccount(0).address;
  // TestToken's `balanceOf` mapping is its fourth variable (slot 3).
  const balanceSlot = (who: Hex) =>
    keccak256(`${pad(who, { size: 32 })}${pad("0x3", { size: 32 }).slice(2)}`);

  beforeAll(async () => {
    t = await startTestNode();
    const { wallet, publicClient } = viemClients(t.url);
    const hash = await wallet.deployContract({
      abi: TestToken.abi,
      bytecode: TestToken.bytecode,
      args: ["Proof", "PRF", 123_456n],
    });
    token = (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
  });

  afterAll(() => t?.stop());

  async function stateRoot(at: string): Promise<Hex> {
    return (await result<{ stateRoot: Hex }>(t.url, "eth_getBlockByNumber", [at, false])).stateRoot;
  }

  it("proves an externally owned account against the state root", async () => {
    const proof = await result<Proof>(t.url, "eth_getProof", [owner, [], "latest"]);
    expect(proof.address).toBe(owner.toLowerCase());
    expect(proof.storageHash).toBe(EMPTY_TRIE_ROOT);
    expect(BigInt(proof.nonce)).toBe(1n);
    expect(BigInt(proof.balance)).toBe(BigInt(await result<Hex>(t.url, "eth_getBalance", [owner, "latest"])));
    verifyAccount(await stateRoot("latest"), proof);
  });

  it("proves contract storage slots, present and absent, against the storage root", async () => {
    const slots = Array.from({ length: 8 }, (_, i) => pad(toHex(i), { size: 32 }));
    const proof = await result<Proof>(t.url, "eth_getProof", [token, [...slots, balanceSlot(owner)]]);
    verifyAccount(await stateRoot("latest"), proof);
    expect(proof.storageHash).not.toBe(EMPTY_TRIE_ROOT);
    const values = verifyStorage(proof);
    for (const [i, slot] of slots.entries()) {
      const stored = await result<Hex>(t.url, "eth_getStorageAt", [token, slot, "latest"]);
      expect(values[i]).toBe(BigInt(stored));
    }
    expect(values[2]).toBe(123_456n);
    expect(values.at(-1)).toBe(123_456n);
    expect(values.some((v) => v === 0n)).toBe(true);
  });

  it("proves the absence of an account, with geth's zero hashes", async () => {
    const nobody = "0x00000000000000000000000000000000000dead1";
    const proof = await result<Proof>(t.url, "eth_getProof", [nobody, ["0x1"]]);
    expect(proof).toMatchObject({
      codeHash: ZERO_HASH,
      storageHash: ZERO_HASH,
      balance: "0x0",
      nonce: "0x0",
    });
    expect(proof.storageProof).toEqual([{ key: "0x1", value: "0x0", proof: [] }]);
    verifyAccount(await stateRoot("latest"), proof);
  });

  it("echoes short keys as quantities and 32-byte keys as given, as geth", async () => {
    const full = pad("0x2", { size: 32 });
    const proof = await result<Proof>(t.url, "eth_getProof", [owner, ["0x02", full, "2"]]);
    expect(proof.storageProof.map((s) => s.key)).toEqual(["0x2", full, "0x2"]);
    expect(proof.storageProof.every((s) => s.value === "0x0" && s.proof.length === 0)).toBe(true);
  });

  it("proves historic state against that block's root", async () => {
    const proof = await result<Proof>(t.url, "eth_getProof", [owner, [], "0x0"]);
    expect(proof.nonce).toBe("0x0");
    verifyAccount(await stateRoot("0x0"), proof);
    const tokenAtGenesis = await result<Proof>(t.url, "eth_getProof", [token, ["0x0"], "earliest"]);
    expect(tokenAtGenesis.codeHash).toBe(ZERO_HASH);
    verifyAccount(await stateRoot("0x0"), tokenAtGenesis);
  });

  it("rejects bad keys and blocks with geth's errors", async () => {
    const tooLong = `0x${"11".repeat(33)}`;
    expect((await rpc(t.url, "eth_getProof", [owner, [tooLong]])).error).toMatchObject({
      code: -32602,
      message: `storage key too long (want at most 32 bytes): "${tooLong}"`,
    });
    expect((await rpc(t.url, "eth_getProof", [owner, ["0xzz"]])).error?.code).toBe(-32602);
    expect((await rpc(t.url, "eth_getProof", [owner, "0x1"])).error?.code).toBe(-32602);
    const many = Array.from({ length: 1025 }, () => "0x1");
    expect((await rpc(t.url, "eth_getProof", [owner, many])).error?.message).toBe(
      "too many storage keys requested (max 1024, got 1025)",
    );
    expect((await rpc(t.url, "eth_getProof", [owner, [], "0x99999"])).error).toMatchObject({
      code: -32000,
      message: "header not found",
    });
  });
});

describe("eth_getStorageValues", () => {
  let t: TestNode;

  beforeAll(async () => {
    t = await startTestNode();
  });

  afterAll(() => t?.stop());

  it("reads several slots of several accounts as 32-byte words", async () => {
    const { wallet, publicClient } = viemClients(t.url);
    const hash = await wallet.deployContract({
      abi: TestToken.abi,
      bytecode: TestToken.bytecode,
      args: ["Values", "VAL", 77n],
    });
    const token = (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
    const slots = ["0x0", "0x1", "0x2", "0x3"].map((s) => pad(s as Hex, { size: 32 }));
    const other = devAccount(3).address;
    const values = await result<Record<string, Hex[]>>(t.url, "eth_getStorageValues", [
      { [token]: slots, [other]: [slots[0]] },
      "latest",
    ]);
    expect(Object.keys(values).sort()).toEqual([token.toLowerCase(), other.toLowerCase()].sort());
    for (const [i, slot] of slots.entries()) {
      expect(values[token.toLowerCase()]![i]).toBe(await result(t.url, "eth_getStorageAt", [token, slot]));
    }
    expect(values[other.toLowerCase()]).toEqual([ZERO_HASH]);
  });

  it("refuses an empty request, too many slots and short keys", async () => {
    const who = devAccount(0).address;
    expect((await rpc(t.url, "eth_getStorageValues", [{}])).error).toMatchObject({
      code: -32602,
      message: "empty request",
    });
    const many = Array.from({ length: 1025 }, () => ZERO_HASH);
    expect((await rpc(t.url, "eth_getStorageValues", [{ [who]: many }])).error).toMatchObject({
      code: -38026,
      message: "too many slots (max 1024)",
    });
    expect((await rpc(t.url, "eth_getStorageValues", [{ [who]: ["0x1"] }])).error?.code).toBe(-32602);
    expect((await rpc(t.url, "eth_getStorageValues", [{ "0x12": [ZERO_HASH] }])).error?.code).toBe(-32602);
  });
});
