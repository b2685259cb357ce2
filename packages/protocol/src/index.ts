export * from "./batch-budget.js";
export * from "./envelope.js";
export * from "./errors.js";
export * from "./hex.js";
export * from "./methods/index.js";
export * from "./objects/index.js";
export * from "./schemas.js";
export * from "./send-queue.js";
