import { evidenceToJson } from "../../../consensus/evidence.js";
import { UnavailableResourceError } from "../../../errors/domain-errors.js";
import { defineMethods } from "../../registry.js";
import { requireBlock } from "../../services.js";

/**
 * `svc_getValidators` and `svc_getStakingInfo`: validators and stakes read from the Staking
 * contract; `svc_getDoubleSignEvidence`: the double signing this node has caught.
 */
export const stakingMethods = defineMethods({
  /** Every registered validator at the block (default latest), sorted by stake descending. */
  svc_getValidators: ([at], services) => services.staking.validators(requireBlock(services, at)),
  /** The network's staking figures at the head; with an address, plus that account's stake and rewards. */
  svc_getStakingInfo: ([who], services) => {
    const head = services.chain.head;
    return who === undefined ? services.staking.network(head) : services.staking.account(head, who);
  },
  /** Double-sign evidence this node caught (the newest 64), each with the calldata that submits it to Staking. */
  svc_getDoubleSignEvidence: (_params, services) => {
    if (!services.finality) throw new UnavailableResourceError("this network has no validator votes");
    return services.finality.evidence.map(evidenceToJson);
  },
});
