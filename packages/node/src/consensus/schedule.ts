/** A member of the validator set (`Staking.validatorSet()`) with its total stake (wei). */
export interface ActiveValidator {
  /** Lowercase hex address. */
  readonly address: string;
  readonly stake: bigint;
  /** Jailed for missed slots: it still votes for finality, but is left out of the proposer rotation. */
  readonly jailed?: boolean;
}

/**
 * The order in which the validators may seal block `number`: rank 0 is the scheduled proposer, rank
 * k the fallback that may seal once k timeouts have passed. Only the set's unjailed members propose
 * (all of them in the unlikely case that every one is jailed: the chain never stops).
 *
 * The scheduled proposer comes from a smooth weighted round robin over those proposers (in the
 * contract's order: stake descending, ties by address), restarted at every epoch boundary: at each
 * slot every validator's credit grows by its stake, the validator with the most credit (the first in
 * order on a tie) proposes and pays back the total stake. Over an epoch each validator proposes in
 * proportion to its stake, spread evenly, and the result depends only on the active set and the
 * block number. The fallbacks follow the scheduled proposer in the set's order, wrapping around.
 */
export function slotOrder(set: readonly ActiveValidator[], epochLength: bigint, number: bigint): string[] {
  const unjailed = set.filter((v) => !v.jailed);
  const active = unjailed.length > 0 ? unjailed : set;
  if (active.length === 0) return [];
  const slot = Number(number % epochLength);
  const total = active.reduce((sum, v) => sum + v.stake, 0n);
  const credit = active.map(() => 0n);
  let proposer = 0;
  for (let step = 0; step <= slot; step++) {
    proposer = 0;
    for (let i = 0; i < active.length; i++) {
      credit[i]! += active[i]!.stake;
      if (credit[i]! > credit[proposer]!) proposer = i;
    }
    credit[proposer]! -= total;
  }
  return active.map((_, k) => active[(proposer + k) % active.length]!.address);
}

/** The earliest timestamp at which the validator at `rank` may seal on a parent with `parentTimestamp`. */
export function earliestTimestamp(parentTimestamp: bigint, rank: number, fallbackTimeout: bigint): bigint {
  const afterTimeouts = parentTimestamp + BigInt(rank) * fallbackTimeout;
  return afterTimeouts > parentTimestamp ? afterTimeouts : parentTimestamp + 1n;
}
