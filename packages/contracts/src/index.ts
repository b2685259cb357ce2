export { artifacts, type ContractName, DePINRegistry, PriceOracle, Staking, TestToken } from "./artifacts.js";
export * from "./constants.js";
export * from "./deploy.js";
