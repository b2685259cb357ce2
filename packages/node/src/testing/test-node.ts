import { type NodeConfigOverrides, testConfig } from "../config/node-config.js";
import { createNode, type StrataNode } from "../node.js";

/** A node started for a test on port 0 with an in-memory store (unless a datadir is given). */
export interface TestNode {
  readonly node: StrataNode;
  readonly url: string;
  readonly wsUrl: string;
  stop(): Promise<void>;
}

/** Starts a dev-network node in-process for tests; `stop()` shuts it down. */
export async function startTestNode(overrides: NodeConfigOverrides = {}): Promise<TestNode> {
  const node = await createNode(testConfig(overrides));
  await node.start();
  return { node, url: node.rpcUrl, wsUrl: node.wsUrl, stop: () => node.stop() };
}
