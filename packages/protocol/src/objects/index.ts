export * from "./api.js";
export * from "./chain.js";
export * from "./depin.js";
export * from "./hex-text.js";
export * from "./names.js";
export * from "./prediction.js";
export * from "./staking.js";
