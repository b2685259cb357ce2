import { type Hex, keccak256, toBytes } from "viem";
import { describe, expect, it } from "vitest";
import { DePINRegistry } from "./artifacts.js";
import { DEPIN_NODE_TYPES, DEPIN_REGISTRY_ADDRESS } from "./constants.js";
import { type DePINRegistryConfig, depinRegistryCreationCode } from "./deploy.js";
import { TestEvm, testAccount } from "./testing/evm.js";

const STRA = 10n ** 18n;
const abi = DePINRegistry.abi;
const address = DEPIN_REGISTRY_ADDRESS;

const OWNER = testAccount(31);
const OPERATOR = testAccount(32);
const OTHER = testAccount(33);
const ZERO = "0x0000000000000000000000000000000000000000";

const REGISTERED = 1;
const DEREGISTERED = 2;
const WITHDRAWN = 3;

const CONFIG: DePINRegistryConfig = {
  minBond: 10n * STRA,
  heartbeatWindow: 30n,
  heartbeatInterval: 10n,
  bondReturnDelay: 50n,
};

const id = (name: string): Hex => keccak256(toBytes(name));
const NODE = id("node-1");

async function setup(config: DePINRegistryConfig = CONFIG) {
  const evm = await TestEvm.create();
  evm.setBlock(0n);
  await evm.deployAt(address, depinRegistryCreationCode(config));
  evm.mine();
  for (const a of [OWNER, OPERATOR, OTHER]) await evm.fund(a, 1_000n * STRA);
  return evm;
}

function register(
  evm: TestEvm,
  opts: Partial<{
    id: Hex;
    type: string;
    region: string;
    endpoint: string;
    operator: Hex;
    from: Hex;
    bond: bigint;
  }> = {},
) {
  return evm.write({
    address,
    abi,
    functionName: "register",
    args: [
      opts.id ?? NODE,
      opts.type ?? "compute",
      opts.region ?? "eu-west",
      opts.endpoint ?? "https://node-1.example:443",
      opts.operator ?? OPERATOR,
    ],
    from: opts.from ?? OWNER,
    value: opts.bond ?? 10n * STRA,
  });
}

const heartbeat = (evm: TestEvm, from: Hex = OWNER, nodeId: Hex = NODE) =>
  evm.write({ address, abi, functionName: "heartbeat", args: [nodeId], from });

const node = (evm: TestEvm, nodeId: Hex = NODE) =>
  evm.read({ address, abi, functionName: "getNode", args: [nodeId] });

const uptime = (evm: TestEvm, nodeId: Hex = NODE) =>
  evm.read({ address, abi, functionName: "uptime", args: [nodeId] });

describe("DePINRegistry: configuration", () => {
  it("exposes its configuration and rejects invalid ones", async () => {
    const evm = await setup();
    expect(await evm.read({ address, abi, functionName: "config" })).toEqual(CONFIG);
    const cases: [Partial<DePINRegistryConfig>, string][] = [
      [{ heartbeatInterval: 0n }, "heartbeatInterval"],
      [{ heartbeatWindow: 5n }, "heartbeatWindow"], // shorter than one interval
      [{ heartbeatWindow: 330n }, "heartbeatWindow"], // 33 buckets
    ];
    for (const [bad, field] of cases) {
      await expect(
        evm.deploy(depinRegistryCreationCode({ ...CONFIG, ...bad }), undefined, abi),
      ).rejects.toMatchObject({ errorName: "InvalidConfig", args: [field] });
    }
    await evm.deploy(depinRegistryCreationCode({ ...CONFIG, heartbeatWindow: 320n }), undefined, abi);
  });
});

describe("DePINRegistry: register", () => {
  it("registers a node with its bond", async () => {
    const evm = await setup();
    evm.setBlock(5n);
    const res = await register(evm);
    expect(TestEvm.events(res, abi, "NodeRegistered")).toEqual([
      {
        id: NODE,
        owner: OWNER,
        nodeType: "compute",
        region: "eu-west",
        endpoint: "https://node-1.example:443",
        operator: OPERATOR,
        bond: 10n * STRA,
      },
    ]);
    expect(await node(evm)).toEqual({
      id: NODE,
      owner: OWNER,
      operator: OPERATOR,
      nodeType: "compute",
      region: "eu-west",
      endpoint: "https://node-1.example:443",
      bond: 10n * STRA,
      status: REGISTERED,
      active: false,
      registeredAt: 5n,
      lastHeartbeatBlock: 0n,
      lastHeartbeatAt: 0n,
      heartbeatCount: 0n,
      firstHeartbeatBlock: 0n,
      heartbeatsSeen: 0n,
      heartbeatsExpected: 0n,
      uptimeBps: 0n,
      deregisteredAt: 0n,
      bondAvailableAt: 0n,
    });
    expect(await evm.balance(address)).toBe(10n * STRA);
    expect(await evm.read({ address, abi, functionName: "nodeCount" })).toBe(1n);
  });

  it("accepts every node type and pages ids and records", async () => {
    const evm = await setup();
    for (const [i, type] of DEPIN_NODE_TYPES.entries()) {
      await register(evm, { id: id(`n${i}`), type, operator: ZERO });
    }
    expect(await evm.read({ address, abi, functionName: "nodeCount" })).toBe(5n);
    expect(await evm.read({ address, abi, functionName: "nodeIds", args: [0n, 2n] })).toEqual([
      id("n0"),
      id("n1"),
    ]);
    expect(await evm.read({ address, abi, functionName: "nodeIds", args: [3n, 100n] })).toEqual([
      id("n3"),
      id("n4"),
    ]);
    expect(await evm.read({ address, abi, functionName: "nodeIds", args: [5n, 1n] })).toEqual([]);
    const page = await evm.read({ address, abi, functionName: "getNodes", args: [1n, 3n] });
    expect(page.map((n) => n.nodeType)).toEqual(["storage", "wireless", "sensor"]);
    expect(page[0]!.operator).toBe(ZERO);
  });

  it("rejects bad ids, types, bonds, duplicates and oversized fields", async () => {
    const evm = await setup();
    const zeroId = `0x${"00".repeat(32)}` as Hex;
    await expect(register(evm, { id: zeroId })).rejects.toMatchObject({ errorName: "InvalidNodeId" });
    await expect(register(evm, { type: "gpu" })).rejects.toMatchObject({
      errorName: "UnknownNodeType",
      args: ["gpu"],
    });
    await expect(register(evm, { type: "Compute" })).rejects.toMatchObject({ errorName: "UnknownNodeType" });
    await expect(register(evm, { bond: 10n * STRA - 1n })).rejects.toMatchObject({
      errorName: "BondTooLow",
      args: [10n * STRA - 1n, 10n * STRA],
    });
    await expect(register(evm, { region: "r".repeat(65) })).rejects.toMatchObject({
      errorName: "FieldTooLong",
      args: ["region", 64n],
    });
    await expect(register(evm, { endpoint: "e".repeat(257) })).rejects.toMatchObject({
      errorName: "FieldTooLong",
      args: ["endpoint", 256n],
    });
    await register(evm, { region: "r".repeat(64), endpoint: "e".repeat(256) });
    await expect(register(evm, { from: OTHER })).rejects.toMatchObject({
      errorName: "NodeExists",
      args: [NODE],
    });
  });
});

describe("DePINRegistry: heartbeats and uptime", () => {
  it("accepts heartbeats from the owner and the operator only", async () => {
    const evm = await setup();
    await register(evm);
    evm.setBlock(7n, 1_700_000_100n);
    const res = await heartbeat(evm, OWNER);
    expect(TestEvm.events(res, abi, "Heartbeat")).toEqual([
      { id: NODE, sender: OWNER, blockNumber: 7n, timestamp: 1_700_000_100n, count: 1n },
    ]);
    evm.setBlock(9n, 1_700_000_104n);
    await heartbeat(evm, OPERATOR);
    await expect(heartbeat(evm, OTHER)).rejects.toMatchObject({
      errorName: "NotNodeOwnerOrOperator",
      args: [NODE, OTHER],
    });
    await expect(heartbeat(evm, OWNER, id("missing"))).rejects.toMatchObject({
      errorName: "UnknownNode",
      args: [id("missing")],
    });
    expect(await node(evm)).toMatchObject({
      heartbeatCount: 2n,
      firstHeartbeatBlock: 7n,
      lastHeartbeatBlock: 9n,
      lastHeartbeatAt: 1_700_000_104n,
      active: true,
    });
  });

  it("is active while the last heartbeat is within heartbeatWindow blocks", async () => {
    const evm = await setup();
    await register(evm);
    evm.setBlock(10n);
    await heartbeat(evm);
    evm.setBlock(40n);
    expect(await evm.read({ address, abi, functionName: "isActive", args: [NODE] })).toBe(true);
    evm.setBlock(41n);
    expect(await evm.read({ address, abi, functionName: "isActive", args: [NODE] })).toBe(false);
    expect((await node(evm)).active).toBe(false);
  });

  it("computes uptime as heartbeat buckets seen over buckets expected in the window", async () => {
    const evm = await setup(); // interval 10 blocks, window 3 buckets
    evm.setBlock(5n);
    await register(evm);
    expect(await uptime(evm)).toEqual([0n, 0n, 0n]); // open bucket without heartbeat: no data
    await heartbeat(evm);
    expect(await uptime(evm)).toEqual([1n, 1n, 10_000n]);
    evm.setBlock(15n); // bucket 1 open, no heartbeat yet: not expected yet
    expect(await uptime(evm)).toEqual([1n, 1n, 10_000n]);
    evm.setBlock(25n); // bucket 1 missed, bucket 2 open
    expect(await uptime(evm)).toEqual([1n, 2n, 5_000n]);
    await heartbeat(evm);
    expect(await uptime(evm)).toEqual([2n, 3n, 6_666n]);
    evm.setBlock(35n); // window = buckets 1..3: bucket 0 left it
    expect(await uptime(evm)).toEqual([1n, 2n, 5_000n]);
    await heartbeat(evm);
    evm.setBlock(36n);
    await heartbeat(evm); // same bucket: counted once
    expect(await uptime(evm)).toEqual([2n, 3n, 6_666n]);
    expect((await node(evm)).heartbeatCount).toBe(4n);
    evm.setBlock(75n); // window = buckets 5..7, none seen
    expect(await uptime(evm)).toEqual([0n, 2n, 0n]);
  });

  it("keeps exact counts across the whole ring with a 32-bucket window", async () => {
    const evm = await setup({ ...CONFIG, heartbeatWindow: 320n });
    evm.setBlock(1n);
    await register(evm);
    for (let b = 0n; b < 40n; b++) {
      evm.setBlock(b * 10n + 3n);
      await heartbeat(evm, OPERATOR);
    }
    expect(await uptime(evm)).toEqual([32n, 32n, 10_000n]);
    evm.setBlock(405n); // bucket 40 open without heartbeat
    expect(await uptime(evm)).toEqual([31n, 31n, 10_000n]);
    evm.setBlock(415n); // bucket 40 missed
    expect(await uptime(evm)).toEqual([30n, 31n, 9_677n]);
  });
});

describe("DePINRegistry: update, deregister and bond", () => {
  it("update changes region, endpoint and operator (owner only)", async () => {
    const evm = await setup();
    await register(evm);
    const update = (from: Hex, region = "us-east", endpoint = "tcp://1.2.3.4:9000", operator: Hex = OTHER) =>
      evm.write({ address, abi, functionName: "update", args: [NODE, region, endpoint, operator], from });
    await expect(update(OPERATOR)).rejects.toMatchObject({
      errorName: "NotNodeOwner",
      args: [NODE, OPERATOR],
    });
    await expect(update(OWNER, "r".repeat(65))).rejects.toMatchObject({ errorName: "FieldTooLong" });
    await expect(
      evm.write({ address, abi, functionName: "update", args: [id("x"), "a", "b", ZERO], from: OWNER }),
    ).rejects.toMatchObject({ errorName: "UnknownNode", args: [id("x")] });
    const res = await update(OWNER);
    expect(TestEvm.events(res, abi, "NodeUpdated")).toEqual([
      { id: NODE, region: "us-east", endpoint: "tcp://1.2.3.4:9000", operator: OTHER },
    ]);
    expect(await node(evm)).toMatchObject({
      region: "us-east",
      endpoint: "tcp://1.2.3.4:9000",
      operator: OTHER,
    });
    // the old operator lost its right to send heartbeats, the new one has it
    await expect(heartbeat(evm, OPERATOR)).rejects.toMatchObject({ errorName: "NotNodeOwnerOrOperator" });
    await heartbeat(evm, OTHER);
  });

  it("deregister starts the bond-return delay; withdrawBond pays after it", async () => {
    const evm = await setup();
    evm.setBlock(2n);
    await register(evm);
    await heartbeat(evm);
    const deregister = (from: Hex, nodeId: Hex = NODE) =>
      evm.write({ address, abi, functionName: "deregister", args: [nodeId], from });
    const withdraw = (from: Hex, nodeId: Hex = NODE) =>
      evm.write({ address, abi, functionName: "withdrawBond", args: [nodeId], from });

    await expect(withdraw(OWNER)).rejects.toMatchObject({ errorName: "NodeNotDeregistered", args: [NODE] });
    await expect(deregister(OPERATOR)).rejects.toMatchObject({
      errorName: "NotNodeOwner",
      args: [NODE, OPERATOR],
    });
    await expect(deregister(OWNER, id("x"))).rejects.toMatchObject({ errorName: "UnknownNode" });

    evm.setBlock(10n);
    const res = await deregister(OWNER);
    expect(TestEvm.events(res, abi, "NodeDeregistered")).toEqual([{ id: NODE, bondAvailableAt: 60n }]);
    expect(await node(evm)).toMatchObject({
      status: DEREGISTERED,
      active: false,
      deregisteredAt: 10n,
      bondAvailableAt: 60n,
    });
    await expect(deregister(OWNER)).rejects.toMatchObject({ errorName: "NodeIsDeregistered", args: [NODE] });
    await expect(heartbeat(evm)).rejects.toMatchObject({ errorName: "NodeIsDeregistered", args: [NODE] });
    await expect(
      evm.write({ address, abi, functionName: "update", args: [NODE, "a", "b", ZERO], from: OWNER }),
    ).rejects.toMatchObject({ errorName: "NodeIsDeregistered" });
    // uptime is frozen at the deregistration bucket
    evm.setBlock(59n);
    expect(await uptime(evm)).toEqual([1n, 1n, 10_000n]);

    await expect(withdraw(OWNER)).rejects.toMatchObject({ errorName: "BondLocked", args: [NODE, 60n] });
    evm.setBlock(60n);
    await expect(withdraw(OPERATOR)).rejects.toMatchObject({
      errorName: "NotNodeOwner",
      args: [NODE, OPERATOR],
    });
    await expect(withdraw(OWNER, id("x"))).rejects.toMatchObject({ errorName: "UnknownNode" });
    const before = await evm.balance(OWNER);
    const w = await withdraw(OWNER);
    expect(TestEvm.events(w, abi, "BondWithdrawn")).toEqual([{ id: NODE, owner: OWNER, amount: 10n * STRA }]);
    expect(await evm.balance(OWNER)).toBe(before + 10n * STRA);
    expect(await evm.balance(address)).toBe(0n);
    expect(await node(evm)).toMatchObject({ status: WITHDRAWN, bond: 0n });
    await expect(withdraw(OWNER)).rejects.toMatchObject({ errorName: "BondAlreadyWithdrawn", args: [NODE] });
    // ids are never reused
    await expect(register(evm)).rejects.toMatchObject({ errorName: "NodeExists", args: [NODE] });
  });

  it("withdrawBond reverts with TransferFailed when the owner refuses the payment", async () => {
    const evm = await setup();
    const R = testAccount(77);
    await evm.setCode(R, "0x5f5ffd"); // reverts on every call
    await evm.fund(R, 100n * STRA);
    await register(evm, { from: R });
    await evm.write({ address, abi, functionName: "deregister", args: [NODE], from: R });
    evm.setBlock(100n);
    await expect(
      evm.write({ address, abi, functionName: "withdrawBond", args: [NODE], from: R }),
    ).rejects.toMatchObject({ errorName: "TransferFailed", args: [R, 10n * STRA] });
    expect((await node(evm)).status).toBe(DEREGISTERED);
  });

  it("getNode and uptime of an unknown id revert", async () => {
    const evm = await setup();
    await expect(node(evm, id("x"))).rejects.toMatchObject({ errorName: "UnknownNode", args: [id("x")] });
    await expect(uptime(evm, id("x"))).rejects.toMatchObject({ errorName: "UnknownNode" });
    expect(await evm.read({ address, abi, functionName: "isActive", args: [id("x")] })).toBe(false);
  });
});
