import { DEV_ACCOUNT_0 } from "../accounts.js";
import { assertHexQuantity, rpcLoadScenario } from "./rpcLoad.js";

export const getBalance = rpcLoadScenario({
  name: "getBalance",
  description: 'eth_getBalance(dev account 0, "latest"): a read of account state.',
  request: async () => ({ method: "eth_getBalance", params: [DEV_ACCOUNT_0, "latest"] }),
  expect: (result) => {
    const balance = assertHexQuantity(result, "eth_getBalance");
    if (BigInt(balance) === 0n) throw new Error("eth_getBalance: dev account 0 has no balance");
    return JSON.stringify(balance);
  },
});
