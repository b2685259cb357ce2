import { describe, expect, it } from "vitest";
import { parseFlags } from "../flags.js";
import { DEV_FLAGS, devNodeArgs, devSettings } from "./dev.js";
import { NODE_FLAGS, nodeConfigFromFlags } from "./node.js";

/** The node configuration `strata dev <argv>` starts its node process with. */
function devNodeConfig(...argv: string[]) {
  const [command, ...nodeArgv] = devNodeArgs(devSettings(parseFlags(argv, DEV_FLAGS, { env: {} })));
  expect(command).toBe("node");
  return nodeConfigFromFlags(parseFlags(nodeArgv, NODE_FLAGS, { env: {} }));
}

describe("strata dev --no-demo", () => {
  it("starts the dev node with the DePIN demo and the price reporter, and without the demo when told", () => {
    const datadir = "/nonexistent/strata-dev-flags";
    const withDemo = devNodeConfig("--datadir", datadir);
    expect(withDemo.network.chainId).toBe(1337);
    expect(withDemo.demo).toMatchObject({ silentAfterBlocks: 30 });
    expect(withDemo.reporter).not.toBeNull();
    const withoutDemo = devNodeConfig("--datadir", datadir, "--no-demo");
    expect(withoutDemo.demo).toBeNull();
    expect(withoutDemo.reporter).not.toBeNull();
  });
});
