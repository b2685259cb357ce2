import { defineMethods } from "../../registry.js";

/** `svc_getAIPrediction([asset, horizon])`: a forecast from the on-chain price history at the head. */
export const predictionMethods = defineMethods({
  svc_getAIPrediction: ([asset, horizon], services) =>
    services.predictions.predict(services.chain.head, asset, horizon),
});
