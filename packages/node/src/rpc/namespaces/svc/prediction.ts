import { z } from "zod";
import { defineMethod } from "../../registry.js";

/** Longest forecast horizon of `svc_getAIPrediction`, in days. */
export const MAX_PREDICTION_HORIZON = 365;

const Asset = z.string().min(1).max(32);
const Horizon = z
  .number()
  .int("horizon must be an integer number of days")
  .min(1)
  .max(MAX_PREDICTION_HORIZON);

/** `svc_getAIPrediction([asset, horizon])`: a forecast from the on-chain price history at the head. */
export const predictionMethods = {
  svc_getAIPrediction: defineMethod({
    params: [Asset, Horizon],
    required: 2,
    summary:
      "Predicts an asset's price horizon days ahead from the on-chain oracle history, with an 80 % interval and a calibrated confidence.",
    handler: ([asset, horizon], services) =>
      services.predictions.predict(services.chain.head, asset, horizon),
  }),
};
