import { ApiBalance, ApiChainInfo } from "../objects/api.js";
import { Address, BlockNumberOrTag } from "../schemas.js";
import { method } from "./define.js";

/** The gateway's own methods (DECISIONS.md "API server"); a node does not serve them. */
export const apiMethods = {
  /** `api_getBalance([address, blockTag?])`: the balance in wei and in STRA at one block. */
  api_getBalance: method({ params: [Address, BlockNumberOrTag], required: 1, result: ApiBalance }),
  /** `api_getChainInfo([])`: chain identity, head and node status in one call. */
  api_getChainInfo: method({ params: [], required: 0, result: ApiChainInfo }),
};
