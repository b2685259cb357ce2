import { z } from "zod";
import { DePINFilter, DePINNode } from "../objects/depin.js";
import { MAX_PREDICTION_HORIZON, Prediction } from "../objects/prediction.js";
import { AccountStakingInfo, DoubleSignReport, NetworkStakingInfo, Validator } from "../objects/staking.js";
import { Address, BlockSpec } from "../schemas.js";
import { method } from "./define.js";

/** An asset symbol with an on-chain price feed (`STRA`, `BTC`, `ETH` on dev). */
export const Asset = z.string().min(1).max(32);
/** A forecast horizon in whole days. */
export const Horizon = z
  .number()
  .int("horizon must be an integer number of days")
  .min(1)
  .max(MAX_PREDICTION_HORIZON);

/** Strata's chain modules (DECISIONS.md "Chain-specific methods"): staking, the DePIN registry, predictions. */
export const svcMethods = {
  /** Every registered validator at the block (default latest), sorted by stake descending. */
  svc_getValidators: method({ params: [BlockSpec], required: 0, result: z.array(Validator) }),
  /** The network's staking figures at the head; with an address, plus that account's stake and rewards. */
  svc_getStakingInfo: method({
    params: [Address],
    required: 0,
    result: z.union([AccountStakingInfo, NetworkStakingInfo]),
  }),
  /** Double-sign evidence this node caught (the newest 64), each with the calldata that submits it to Staking. */
  svc_getDoubleSignEvidence: method({ params: [], required: 0, result: z.array(DoubleSignReport) }),
  svc_getDePINNodes: method({
    params: [DePINFilter],
    required: 0,
    result: z.array(DePINNode),
    summary:
      "Returns the DePIN registry's nodes at the head, filtered by type, region, owner and status, and paged.",
  }),
  svc_getAIPrediction: method({
    params: [Asset, Horizon],
    required: 2,
    result: Prediction,
    summary:
      "Predicts an asset's price horizon days ahead from the on-chain oracle history, with an 80 % interval and a calibrated confidence.",
  }),
};
