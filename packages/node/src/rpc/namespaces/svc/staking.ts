import { Address, BlockSpec } from "@strata/protocol";
import { defineMethod } from "../../registry.js";
import { requireBlock } from "../../services.js";

/** `svc_getValidators` and `svc_getStakingInfo`: validators and stakes read from the Staking contract. */
export const stakingMethods = {
  /** Every registered validator at the block (default latest), sorted by stake descending. */
  svc_getValidators: defineMethod({
    params: [BlockSpec],
    required: 0,
    handler: ([at], services) => services.staking.validators(requireBlock(services, at)),
  }),
  /** The network's staking figures at the head; with an address, plus that account's stake and rewards. */
  svc_getStakingInfo: defineMethod({
    params: [Address],
    required: 0,
    handler: ([who], services) => {
      const head = services.chain.head;
      return who === undefined ? services.staking.network(head) : services.staking.account(head, who);
    },
  }),
};
