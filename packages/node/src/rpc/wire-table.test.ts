import { NODE_METHODS, type NodeMethodName, type WireParams } from "@strata/protocol";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount, rpc, viemClients } from "../e2e/clients.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { createMethodRegistry } from "./methods.js";
import { chainInfoMethods } from "./namespaces/eth/chain-info.js";

describe("the node's registry and the wire table", () => {
  it("implements every method of the table, and only those", () => {
    expect(createMethodRegistry().names().sort()).toEqual(Object.keys(NODE_METHODS).sort());
  });

  it("takes each method's parameters, required count and summary from its table entry", () => {
    for (const [name, definition] of createMethodRegistry().entries()) {
      const spec = NODE_METHODS[name as NodeMethodName];
      expect(definition.params, name).toBe(spec.params);
      expect(definition.required, name).toBe(spec.required);
      expect(definition.summary, name).toBe(spec.summary);
    }
  });

  it("refuses to register a method twice", () => {
    expect(() => createMethodRegistry().register(chainInfoMethods)).toThrow(
      "method eth_chainId is registered twice",
    );
  });
});

describe("the node's answers match the table's result schemas", () => {
  let t: TestNode;
  const sender = devAccount(0).address.toLowerCase();

  beforeAll(async () => {
    t = await startTestNode();
    const { wallet, publicClient } = viemClients(t.url);
    const hash = await wallet.sendTransaction({ to: devAccount(1).address, value: parseEther("1") });
    await publicClient.waitForTransactionReceipt({ hash });
  });
  afterAll(() => t.stop());

  async function conforms<M extends NodeMethodName>(method: M, ...params: WireParams<M>) {
    const answer = await rpc(t.url, method, params);
    expect(answer.error, method).toBeUndefined();
    const parsed = NODE_METHODS[method].result.safeParse(answer.result);
    expect(parsed.success, `${method}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    return answer.result;
  }

  it("for blocks, transactions, receipts and logs", async () => {
    const block = (await conforms("eth_getBlockByNumber", "latest", true)) as {
      transactions: { hash: string }[];
    };
    await conforms("eth_getBlockByNumber", "pending", false);
    await conforms("eth_getBlockByNumber", "0x0", false);
    await conforms("eth_getHeaderByNumber", "latest");
    const hash = block.transactions[0]!.hash;
    await conforms("eth_getTransactionByHash", hash);
    await conforms("eth_getTransactionReceipt", hash);
    await conforms("eth_getBlockReceipts", "latest");
    await conforms("eth_getLogs", { fromBlock: "0x0", toBlock: "latest" });
    await conforms("eth_feeHistory", "0x4", "latest", [50]);
  });

  it("for chain identity, state, the pool and fees", async () => {
    for (const method of ["eth_chainId", "eth_blockNumber", "eth_gasPrice", "eth_syncing"] as const) {
      await conforms(method);
    }
    await conforms("eth_getBalance", sender, "latest");
    await conforms("eth_capabilities");
    await conforms("txpool_content");
    await conforms("txpool_status");
    await conforms("eth_getProof", sender, [], "latest");
  });

  it("for the chain modules (svc_)", async () => {
    const validators = (await conforms("svc_getValidators")) as unknown[];
    expect(validators.length).toBeGreaterThan(0);
    await conforms("svc_getStakingInfo");
    await conforms("svc_getStakingInfo", sender);
    await conforms("svc_getDePINNodes", { status: "all" });
    await conforms("svc_getDoubleSignEvidence");
  });
});
