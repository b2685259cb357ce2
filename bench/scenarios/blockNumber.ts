import { assertHexQuantity, rpcLoadScenario } from "./rpcLoad.js";

export const blockNumber = rpcLoadScenario({
  name: "blockNumber",
  description: "eth_blockNumber: the cheapest RPC; measures HTTP and JSON-RPC dispatch overhead.",
  request: async () => ({ method: "eth_blockNumber", params: [] }),
  expect: (result) => {
    assertHexQuantity(result, "eth_blockNumber");
    // The head may move during the run, so only require a result.
    return '"result"';
  },
});
