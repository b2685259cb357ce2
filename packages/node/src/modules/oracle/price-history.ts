import type { Block } from "@ethereumjs/block";
import { PRICE_ORACLE_ADDRESS, PriceOracle } from "@strata/contracts";
import type { Address } from "viem";
import type { CallExecutor } from "../../execution/call/call-executor.js";
import { readContract } from "../read-contract.js";

/** One answered oracle round: its id, answer (8 decimals) and observation time (unix seconds). */
export interface OracleRound {
  readonly roundId: bigint;
  readonly answer: bigint;
  readonly observedAt: number;
}

/** An asset's answered rounds at a block, oldest first. */
export interface AssetHistory {
  readonly rounds: readonly OracleRound[];
}

/** Rounds read per call (about 2,100 gas each, well inside the call gas cap). */
const PAGE = 1000n;

/**
 * Reads price history from the PriceOracle contract. Answered rounds never change except the
 * latest one (a round stays open to more reports until the next interval), so each asset's history
 * is kept and only the latest known round and the ones after it are read again.
 */
export class OracleHistoryReader {
  private readonly histories = new Map<string, OracleRound[]>();

  constructor(
    private readonly calls: CallExecutor,
    private readonly address: Address = PRICE_ORACLE_ADDRESS,
  ) {}

  /** Whether the oracle has a feed for `asset` at `block`. */
  hasAsset(block: Block, asset: string): Promise<boolean> {
    return readContract(this.calls, block, {
      address: this.address,
      abi: PriceOracle.abi,
      functionName: "hasAsset",
      args: [asset],
    });
  }

  /** The latest answered round id of `asset` at `block` (0 when none). */
  latestRoundId(block: Block, asset: string): Promise<bigint> {
    return readContract(this.calls, block, {
      address: this.address,
      abi: PriceOracle.abi,
      functionName: "latestRoundId",
      args: [asset],
    });
  }

  /** Every answered round of `asset` up to `latestRoundId` at `block`. */
  async history(block: Block, asset: string, latestRoundId: bigint): Promise<readonly OracleRound[]> {
    const known = this.histories.get(asset) ?? [];
    // Keep rounds before the last known one; read that one again (it may have taken more reports).
    const keep = known.filter((r) => r.roundId < latestRoundId && r.roundId < (known.at(-1)?.roundId ?? 0n));
    const rounds = [...keep];
    for (let from = BigInt(keep.length) + 1n; from <= latestRoundId; from += PAGE) {
      const page = await readContract(this.calls, block, {
        address: this.address,
        abi: PriceOracle.abi,
        functionName: "getRounds",
        args: [asset, from, PAGE],
      });
      for (const r of page) {
        if (r.roundId > latestRoundId) break;
        rounds.push({ roundId: BigInt(r.roundId), answer: r.answer, observedAt: Number(r.updatedAt) });
      }
      if (page.length === 0) break;
    }
    this.histories.set(asset, rounds);
    return rounds;
  }
}
