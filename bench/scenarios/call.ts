import { encodeFunctionData } from "viem";
import { DEV_ACCOUNT_0 } from "../accounts.js";
import { deployErc20, ERC20_ABI, INITIAL_SUPPLY } from "../erc20.js";
import { rpcLoadScenario } from "./rpcLoad.js";

export const call = rpcLoadScenario({
  name: "call",
  description:
    "eth_call ERC-20 balanceOf(dev account 0) on a freshly deployed token: EVM execution per request.",
  request: async (ctx) => {
    const token = await deployErc20(ctx);
    const data = encodeFunctionData({ abi: ERC20_ABI, functionName: "balanceOf", args: [DEV_ACCOUNT_0] });
    return { method: "eth_call", params: [{ to: token, data }, "latest"] };
  },
  expect: (result) => {
    if (typeof result !== "string" || !/^0x[0-9a-f]{64}$/.test(result) || BigInt(result) !== INITIAL_SUPPLY) {
      throw new Error(`eth_call balanceOf: expected ${INITIAL_SUPPLY}, got ${JSON.stringify(result)}`);
    }
    return JSON.stringify(result);
  },
});
