import { encodeFunctionData } from "viem";
import { deployErc20, ERC20_ABI } from "../erc20.js";
import { errorNote, loadMeasurement, runHttpLoad } from "../load.js";
import type { Measurement, Scenario, ScenarioContext } from "./types.js";

/** The n-th holder address queried: never the same twice in a run. */
function holder(n: number): `0x${string}` {
  return `0x${(n + 1).toString(16).padStart(40, "0")}`;
}

/**
 * eth_call of ERC-20 balanceOf with a different holder on every request, so no answer can come from
 * a result cache: this measures EVM execution per request.
 */
export const callDistinct: Scenario = {
  name: "callDistinct",
  description: "eth_call ERC-20 balanceOf(a different address each request): EVM execution, no result reuse.",
  node: "shared",
  repeatable: true,
  modes: () => ["instant"],
  async run(ctx: ScenarioContext): Promise<Measurement> {
    const token = await deployErc20(ctx);
    const bodyFor = (n: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: n,
        method: "eth_call",
        params: [
          {
            to: token,
            data: encodeFunctionData({ abi: ERC20_ABI, functionName: "balanceOf", args: [holder(n)] }),
          },
          "latest",
        ],
      });
    const load = await runHttpLoad({
      url: ctx.node.url,
      body: bodyFor(0),
      bodyFor,
      verifyBody: (b) => b.includes(`"result":"0x${"0".repeat(64)}"`),
      connections: ctx.settings.connections,
      durationSeconds: ctx.settings.durationSeconds,
      warmupSeconds: ctx.settings.warmupSeconds,
    });
    return loadMeasurement(load, errorNote(load), { token });
  },
};
