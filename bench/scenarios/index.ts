import { attack } from "./attack.js";
import { bigTrace } from "./bigTrace.js";
import { blockNumber } from "./blockNumber.js";
import { call } from "./call.js";
import { callDistinct } from "./callDistinct.js";
import { dappWorkflow } from "./dappWorkflow.js";
import { getBalance } from "./getBalance.js";
import { getLogs, getLogsTopic } from "./getLogs.js";
import { ingest } from "./ingest.js";
import { network } from "./network.js";
import { receipt } from "./receipt.js";
import { traceTransaction } from "./traceTransaction.js";
import type { Scenario } from "./types.js";
import { wsNewHeads } from "./wsNewHeads.js";

export type { Measurement, Scenario, ScenarioContext } from "./types.js";

/**
 * Every scenario, in run order. To add one, implement `Scenario` in a module of
 * its own (see types.ts; `rpcLoadScenario` covers single-request HTTP loads)
 * and append it here.
 */
export const SCENARIOS: readonly Scenario[] = [
  blockNumber,
  getBalance,
  call,
  callDistinct,
  getLogs,
  getLogsTopic,
  receipt,
  traceTransaction,
  ingest,
  wsNewHeads,
  dappWorkflow,
  attack,
  bigTrace,
  network,
];
