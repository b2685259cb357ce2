import { blockNumber } from "./blockNumber.js";
import { call } from "./call.js";
import { callDistinct } from "./callDistinct.js";
import { getBalance } from "./getBalance.js";
import { ingest } from "./ingest.js";
import type { Scenario } from "./types.js";

export type { Measurement, Scenario, ScenarioContext } from "./types.js";

/**
 * Every scenario, in run order. To add one, implement `Scenario` in a module of
 * its own (see types.ts; `rpcLoadScenario` covers single-request HTTP loads)
 * and append it here. Planned: WebSocket newHeads fan-out, eth_getLogs.
 */
export const SCENARIOS: readonly Scenario[] = [blockNumber, getBalance, call, callDistinct, ingest];
