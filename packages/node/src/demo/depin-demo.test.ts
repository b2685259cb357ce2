import type { DePINNode } from "@strata/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoFromNetwork } from "../config/demo-settings.js";
import { createNodeConfig, testConfig } from "../config/node-config.js";
import { rpc } from "../e2e/clients.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { DEMO_DEVICES, demoEndpoint, demoNodeId } from "./depin-demo.js";

/** Dev mnemonic account 111, the owner of the demo devices. */
const DEMO_OWNER = "0x6813ae1fc15e995230c05d4480d50219bb635f15";
const SILENT_AFTER = 5;

async function nodes(url: string): Promise<DePINNode[]> {
  const answer = await rpc(url, "svc_getDePINNodes", [{ status: "all" }]);
  if (answer.error) throw new Error(answer.error.message);
  return answer.result as DePINNode[];
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const mine = async (url: string, blocks: number) => {
  const answer = await rpc(url, "anvil_mine", [`0x${blocks.toString(16)}`]);
  if (answer.error) throw new Error(answer.error.message);
};

describe("DePIN demo on the dev network", () => {
  let t: TestNode;

  beforeAll(async () => {
    const settings = demoFromNetwork(createNodeConfig({ network: "dev", datadir: null }).network);
    t = await startTestNode({ demo: { ...settings!, silentAfterBlocks: SILENT_AFTER, pollMs: 50 } });
  });

  afterAll(async () => {
    await t?.stop();
  });

  it("is on for dev by default, never on mainnet, and off in test nodes unless asked for", () => {
    expect(createNodeConfig({ network: "dev", datadir: null }).demo).toMatchObject({ silentAfterBlocks: 30 });
    expect(createNodeConfig({ network: "mainnet", datadir: null }).demo).toBeNull();
    expect(testConfig().demo).toBeNull();
  });

  it("registers simulated devices of every type in several regions, with heartbeats by transaction", async () => {
    const registered = await until("every demo device registered and beating", async () => {
      const list = await nodes(t.url);
      return list.length === DEMO_DEVICES.length && list.every((n) => n.lastHeartbeat !== null)
        ? list
        : undefined;
    });
    expect(new Set(registered.map((n) => n.type))).toEqual(
      new Set(["compute", "storage", "wireless", "sensor", "energy"]),
    );
    expect(new Set(registered.map((n) => n.region)).size).toBe(DEMO_DEVICES.length);
    for (const device of DEMO_DEVICES) {
      const node = registered.find((n) => n.id === demoNodeId(device));
      expect(node, device.name).toMatchObject({ owner: DEMO_OWNER, endpoint: demoEndpoint(device) });
      expect(node!.endpoint).toMatch(/^simulated:\/\//);
    }
    // The heartbeats are ordinary transactions from the owner.
    const sent = (await rpc(t.url, "eth_getTransactionCount", [DEMO_OWNER, "latest"])).result as string;
    expect(Number(sent)).toBeGreaterThan(DEMO_DEVICES.length);
  });

  it("lets one device go silent: its uptime falls below 100 % and it turns inactive", async () => {
    const silent = DEMO_DEVICES.find((d) => d.goesSilent)!;
    // Past the silent device's last heartbeat, bucket after bucket (30 blocks each on dev), with
    // time for the demo to beat for the others in each.
    for (let bucket = 0; bucket < 12; bucket++) {
      await mine(t.url, 30);
      const head = t.node.chain.head.header.number;
      await until("the live devices' heartbeats in the new bucket", async () => {
        const list = await nodes(t.url);
        const live = list.filter((n) => n.id !== demoNodeId(silent));
        return live.every((n) => n.lastHeartbeat !== null && BigInt(n.lastHeartbeat) > head)
          ? list
          : undefined;
      });
    }
    const list = await nodes(t.url);
    const quiet = list.find((n) => n.id === demoNodeId(silent))!;
    expect(quiet.status).toBe("inactive");
    expect(Number(quiet.uptime)).toBeLessThan(100);
    for (const node of list.filter((n) => n.id !== demoNodeId(silent))) {
      expect(node.status).toBe("active");
      expect(Number(node.uptime)).toBeGreaterThan(Number(quiet.uptime));
    }
  }, 120_000);
});
