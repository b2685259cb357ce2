import { parseEther, parseGwei, type TransactionSerializable } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount, rpc } from "../e2e/clients.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";

let t: TestNode;
const sender = devAccount(1);
const other = devAccount(2).address;

async function sign(tx: Partial<TransactionSerializable> & { nonce: number }, account = sender) {
  return account.signTransaction({
    chainId: 1337,
    type: "eip1559",
    to: other,
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: parseGwei("10"),
    maxPriorityFeePerGas: parseGwei("1"),
    ...tx,
  } as TransactionSerializable);
}

async function send(raw: string) {
  return rpc(t.url, "eth_sendRawTransaction", [raw]);
}

async function minedTx(hash: unknown) {
  const response = await rpc(t.url, "eth_getTransactionByHash", [hash]);
  return response.result as { blockNumber: string | null } | null;
}

beforeAll(async () => {
  t = await startTestNode({ mining: { mode: "manual" } });
});
afterAll(() => t.stop());

describe("transaction pool", () => {
  it("replaces a pending transaction only with a 10% fee bump", async () => {
    const first = await send(await sign({ nonce: 0 }));
    expect(first.result).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await send(await sign({ nonce: 0 }))).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32000, message: "already known" },
    });
    const small = await send(
      await sign({ nonce: 0, maxFeePerGas: parseGwei("10.5"), maxPriorityFeePerGas: parseGwei("1.05") }),
    );
    expect(small.error).toEqual({ code: -32000, message: "replacement transaction underpriced" });
    const tipOnly = await send(
      await sign({ nonce: 0, maxFeePerGas: parseGwei("20"), maxPriorityFeePerGas: parseGwei("1") }),
    );
    expect(tipOnly.error?.message).toBe("replacement transaction underpriced");
    const bumped = await send(
      await sign({ nonce: 0, maxFeePerGas: parseGwei("11"), maxPriorityFeePerGas: parseGwei("1.1") }),
    );
    expect(bumped.result).toMatch(/^0x/);
    expect(await minedTx(first.result)).toBeNull();
    expect((await minedTx(bumped.result))?.blockNumber).toBeNull();
    await rpc(t.url, "evm_mine");
    expect((await minedTx(bumped.result))?.blockNumber).toBe("0x1");
  });

  it("holds transactions behind a nonce gap until the gap is filled", async () => {
    const gapped = await send(await sign({ nonce: 2 }));
    expect(gapped.result).toMatch(/^0x/);
    const pendingNonce = await rpc(t.url, "eth_getTransactionCount", [sender.address, "pending"]);
    expect(pendingNonce.result).toBe("0x1");
    await rpc(t.url, "evm_mine");
    expect((await minedTx(gapped.result))?.blockNumber).toBeNull();
    const filler = await send(await sign({ nonce: 1 }));
    expect((await rpc(t.url, "eth_getTransactionCount", [sender.address, "pending"])).result).toBe("0x3");
    await rpc(t.url, "evm_mine");
    const [a, b] = [await minedTx(filler.result), await minedTx(gapped.result)];
    expect(a?.blockNumber).toBe(b?.blockNumber);
    expect(a?.blockNumber).not.toBeNull();
    expect((await rpc(t.url, "eth_getTransactionCount", [sender.address, "latest"])).result).toBe("0x3");
  });

  it("orders senders by tip within a block", async () => {
    const cheap = await send(await sign({ nonce: 0, maxPriorityFeePerGas: parseGwei("1") }, devAccount(3)));
    const rich = await send(await sign({ nonce: 0, maxPriorityFeePerGas: parseGwei("5") }, devAccount(4)));
    await rpc(t.url, "evm_mine");
    const block = (await rpc(t.url, "eth_getBlockByNumber", ["latest", false])).result as {
      transactions: string[];
    };
    expect(block.transactions).toEqual([rich.result, cheap.result]);
  });

  it.each([
    ["nonce too low", { nonce: 0 }, -32000, /^nonce too low: next nonce 3, tx nonce 0$/],
    [
      "insufficient funds",
      { nonce: 3, value: parseEther("20000") },
      -32000,
      /^insufficient funds for gas \* price \+ value: balance \d+, tx cost \d+, overshot \d+$/,
    ],
    [
      "intrinsic gas too low",
      { nonce: 3, gas: 20_000n },
      -32000,
      /^intrinsic gas too low: gas 20000, minimum needed 21000$/,
    ],
    [
      "exceeds block gas limit",
      { nonce: 3, gas: 30_000_001n, maxFeePerGas: 1_000_000_000n },
      -32000,
      /^exceeds block gas limit$/,
    ],
    [
      "fee below base fee",
      { nonce: 3, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n },
      -32000,
      /^max fee per gas less than block base fee/,
    ],
    [
      "fee cap",
      { nonce: 3, gas: 1_000_000n, maxFeePerGas: parseGwei("2000") },
      -32003,
      /^tx fee \(2\.00 ether\) exceeds the configured cap \(1\.00 ether\)$/,
    ],
    ["wrong chain", { nonce: 3, chainId: 1 }, -32003, /^invalid chain id for signer$/],
  ])("refuses %s", async (_, fields, code, message) => {
    const response = await send(await sign(fields as Partial<TransactionSerializable> & { nonce: number }));
    expect(response.error?.code).toBe(code);
    expect(response.error?.message).toMatch(message);
  });

  it.each([
    ["bad RLP", "0xf8ffff"],
    ["an unsupported type", "0x05c0"],
    ["empty input", "0x"],
    ["a truncated typed tx", "0x02"],
  ])("refuses %s with -32003", async (_, raw) => {
    const response = await send(raw);
    expect(response.error?.code).toBe(-32003);
  });

  it("refuses a bad signature with -32003", async () => {
    const raw = await sign({ nonce: 3 });
    const tampered = `${raw.slice(0, -64)}${"f".repeat(64)}`;
    const response = await send(tampered);
    expect(response.error?.code).toBe(-32003);
  });

  it("refuses oversized transactions with -32003", async () => {
    const raw = await sign({
      nonce: 3,
      data: `0x${"11".repeat(130 * 1024)}`,
      gas: 29_000_000n,
      maxFeePerGas: parseGwei("1"),
    });
    const response = await send(raw);
    expect(response.error).toEqual({ code: -32003, message: "oversized data" });
  });

  it("keeps serving after every refusal", async () => {
    expect((await rpc(t.url, "eth_chainId")).result).toBe("0x539");
  });
});

describe("transaction pool limits", () => {
  it("refuses past the per-sender and total pending limits, but still accepts replacements", async () => {
    const limited = await startTestNode({
      mining: { mode: "manual" },
      txpool: { maxPerSender: 3, maxTotal: 5 },
    });
    const submit = (raw: string) => rpc(limited.url, "eth_sendRawTransaction", [raw]);
    try {
      for (let nonce = 0; nonce < 3; nonce++)
        expect((await submit(await sign({ nonce }))).result).toMatch(/^0x/);
      expect((await submit(await sign({ nonce: 3 }))).error).toEqual({
        code: -32000,
        message: "account limit exceeded",
      });
      const replacement = await submit(
        await sign({ nonce: 2, maxFeePerGas: parseGwei("20"), maxPriorityFeePerGas: parseGwei("2") }),
      );
      expect(replacement.result).toMatch(/^0x/);
      const other = devAccount(6);
      expect((await submit(await sign({ nonce: 0 }, other))).result).toMatch(/^0x/);
      expect((await submit(await sign({ nonce: 1 }, other))).result).toMatch(/^0x/);
      expect((await submit(await sign({ nonce: 2 }, other))).error).toEqual({
        code: -32000,
        message: "transaction underpriced",
      });
      await rpc(limited.url, "evm_mine");
      expect((await submit(await sign({ nonce: 2 }, other))).result).toMatch(/^0x/);
    } finally {
      await limited.stop();
    }
  });
});
