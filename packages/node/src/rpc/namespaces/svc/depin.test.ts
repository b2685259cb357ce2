import { DEPIN_REGISTRY_ADDRESS, DePINRegistry } from "@strata/contracts";
import { type Hex, keccak256, parseEther, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadNetwork } from "../../../config/network.js";
import { devAccount, rpc, viemClients } from "../../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../../testing/test-node.js";

let t: TestNode;
let c: ReturnType<typeof viemClients>;
let o: ReturnType<typeof viemClients>;
const owner = devAccount(0).address.toLowerCase();

type RpcAnswer = { result?: unknown; error?: { code: number; message: string } };

const nodeId = (name: string): Hex => keccak256(toHex(name));
const abi = DePINRegistry.abi;
const address = DEPIN_REGISTRY_ADDRESS;

async function send(clients: ReturnType<typeof viemClients>, hash: Promise<Hex>) {
  const receipt = await clients.publicClient.waitForTransactionReceipt({ hash: await hash });
  expect(receipt.status).toBe("success");
  return receipt;
}

async function register(clients: ReturnType<typeof viemClients>, name: string, type: string, region: string) {
  return send(
    clients,
    clients.wallet.writeContract({
      address,
      abi,
      functionName: "register",
      args: [
        nodeId(name),
        type,
        region,
        `https://${name}.example`,
        "0x0000000000000000000000000000000000000000",
      ],
      value: parseEther("100"),
    }),
  );
}

// A heartbeat that opens a new heartbeat bucket writes one more storage slot than one that does not,
// and the estimate runs against the latest block, not the next one: give it room.
const heartbeat = (clients: ReturnType<typeof viemClients>, name: string) =>
  send(
    clients,
    clients.wallet.writeContract({
      address,
      abi,
      functionName: "heartbeat",
      args: [nodeId(name)],
      gas: 150_000n,
    }),
  );

async function nodes(filter?: Record<string, unknown>) {
  const res = (await rpc(t.url, "svc_getDePINNodes", filter === undefined ? [] : [filter])) as RpcAnswer;
  if (res.error) throw new Error(JSON.stringify(res.error));
  return res.result as Record<string, unknown>[];
}

/** The dev network with a short heartbeat window, so a test can outlast it in a few blocks. */
function shortWindowNetwork() {
  const dev = loadNetwork("dev");
  const system = dev.system!;
  return {
    ...dev,
    system: {
      ...system,
      depinRegistry: { ...system.depinRegistry, heartbeatWindow: WINDOW, heartbeatInterval: 5 },
    },
  };
}
const WINDOW = 20;

beforeAll(async () => {
  t = await startTestNode({ network: shortWindowNetwork() });
  c = viemClients(t.url);
  o = viemClients(t.url, 1);
});

afterAll(() => t.stop());

describe("svc_getDePINNodes", () => {
  it("lists a node registered and heartbeating by transaction as active, with its fields", async () => {
    const reg = await register(c, "gpu-1", "compute", "eu-west");
    const beat = await heartbeat(c, "gpu-1");
    const block = await c.publicClient.getBlock({ blockNumber: beat.blockNumber });
    const [node, ...rest] = await nodes();
    expect(rest).toEqual([]);
    expect(node).toEqual({
      id: nodeId("gpu-1"),
      owner,
      type: "compute",
      region: "eu-west",
      endpoint: "https://gpu-1.example",
      stake: parseEther("100").toString(),
      registeredAt: toHex(reg.blockNumber),
      lastHeartbeat: toHex(beat.blockNumber),
      lastHeartbeatAt: new Date(Number(block.timestamp) * 1000).toISOString(),
      uptime: "100.00",
      status: "active",
      rewards: "0",
    });
  });

  it("filters by type, region, owner and status, and pages", async () => {
    await register(o, "disk-1", "storage", "us-east");
    await register(o, "disk-2", "storage", "eu-west");
    await register(c, "radio-1", "wireless", "eu-west");
    for (const name of ["disk-1", "disk-2"]) await heartbeat(o, name);
    await heartbeat(c, "radio-1");
    const ids = (list: Record<string, unknown>[]) => list.map((n) => n.id);

    expect(ids(await nodes({ type: "storage" }))).toEqual([nodeId("disk-1"), nodeId("disk-2")]);
    expect(ids(await nodes({ region: "EU-WEST" }))).toEqual([
      nodeId("gpu-1"),
      nodeId("disk-2"),
      nodeId("radio-1"),
    ]);
    expect(ids(await nodes({ owner: devAccount(1).address }))).toEqual([nodeId("disk-1"), nodeId("disk-2")]);
    expect(ids(await nodes({ type: "storage", region: "eu-west" }))).toEqual([nodeId("disk-2")]);
    expect(await nodes({ type: "sensor" })).toEqual([]);
    expect(ids(await nodes({ offset: 1, limit: 2 }))).toEqual([nodeId("disk-1"), nodeId("disk-2")]);
    expect(ids(await nodes({ offset: 3 }))).toEqual([nodeId("radio-1")]);
    expect(await nodes({ offset: 4 })).toEqual([]);
    expect(await nodes({ status: "inactive" })).toEqual([]);
    expect(await nodes({ status: "all" })).toHaveLength(4);
  });

  it("shows a node inactive once its last heartbeat is older than the heartbeat window", async () => {
    await register(c, "meter-1", "sensor", "ap-south"); // registered, never heartbeats
    const window = await c.publicClient.readContract({ address, abi, functionName: "heartbeatWindow" });
    expect(window).toBe(BigInt(WINDOW));
    await heartbeat(c, "radio-1");
    await c.testClient.mine({ blocks: Number(window) - 5 });
    expect((await nodes()).map((n) => n.id)).toContain(nodeId("radio-1"));
    await c.testClient.mine({ blocks: 10 });
    await heartbeat(c, "gpu-1"); // gpu-1 is kept alive
    const active = await nodes();
    expect(active.map((n) => n.id)).toEqual([nodeId("gpu-1")]);
    const inactive = await nodes({ status: "inactive" });
    expect(inactive.map((n) => n.id)).toEqual([
      nodeId("disk-1"),
      nodeId("disk-2"),
      nodeId("radio-1"),
      nodeId("meter-1"),
    ]);
    const radio = inactive.find((n) => n.id === nodeId("radio-1"))!;
    expect(radio.status).toBe("inactive");
    expect(Number(radio.uptime)).toBeLessThan(100);
    const meter = inactive.find((n) => n.id === nodeId("meter-1"))!;
    expect(meter.lastHeartbeat).toBeNull();
    expect(meter.lastHeartbeatAt).toBeNull();
  });

  it("refuses bad filters with -32602", async () => {
    for (const filter of [
      { type: "laptop" },
      { status: "sleeping" },
      { limit: 1001 },
      { limit: 0 },
      { offset: -1 },
      { owner: "0x1234" },
      { colour: "red" },
    ]) {
      const res = (await rpc(t.url, "svc_getDePINNodes", [filter])) as RpcAnswer;
      expect(res.error?.code, JSON.stringify(filter)).toBe(-32602);
      expect(res.error?.message).toMatch(/^invalid argument 0/);
    }
  });
});
