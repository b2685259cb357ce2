import type { Block } from "@ethereumjs/block";
import { formatCommission, STAKING_ADDRESS, Staking, VALIDATOR_STATUS } from "@strata/contracts";
import type { AccountStakingInfo, AprWindow, NetworkStakingInfo, Validator } from "@strata/protocol";
import { getAddress } from "viem";
import type { Chain } from "../../chain/chain.js";
import type { CallExecutor } from "../../execution/call/call-executor.js";
import { readContract } from "../read-contract.js";
import { formatFraction, formatUptime, SECONDS_PER_YEAR } from "./figures.js";

/** Epochs over which the APR is measured (the most recent ones). */
const APR_EPOCHS = 10n;

const staking = { address: STAKING_ADDRESS, abi: Staking.abi } as const;

/** Reads validators and stakes from the Staking contract's state; every figure comes from chain state. */
export class StakingService {
  constructor(
    private readonly chain: Chain,
    private readonly calls: CallExecutor,
  ) {}

  /** Every registered validator at `block`, sorted by total stake descending (ties by address). */
  async validators(block: Block): Promise<Validator[]> {
    const infos = await readContract(this.calls, block, { ...staking, functionName: "getValidators" });
    return infos
      .map((v) => ({
        address: v.validator.toLowerCase(),
        stake: v.totalStake.toString(),
        commission: formatCommission(v.commission),
        uptime: formatUptime(v.windowProposed, v.windowProposed + v.windowMissed),
        status: VALIDATOR_STATUS[v.status] ?? "inactive",
        selfStake: v.selfStake.toString(),
        delegatedStake: v.delegatedStake.toString(),
        blocksProposed: Number(v.blocksProposed),
        blocksMissed: Number(v.blocksMissed),
        jailed: v.jailed,
        totalStake: v.totalStake,
      }))
      .sort((a, b) =>
        a.totalStake === b.totalStake
          ? a.address.localeCompare(b.address)
          : a.totalStake > b.totalStake
            ? -1
            : 1,
      )
      .map(({ totalStake: _, ...view }) => view);
  }

  /** The network's staking figures at `block`. */
  async network(block: Block): Promise<NetworkStakingInfo> {
    const read = (b: Block, name: UintGetter) => readStaking(this.calls, b, name);
    const [config, totalStaked, validatorCount, activeCount, epoch, nextEpochBlock] = await Promise.all([
      readContract(this.calls, block, { ...staking, functionName: "config" }),
      read(block, "totalStaked"),
      read(block, "validatorCount"),
      read(block, "activeValidatorCount"),
      read(block, "currentEpoch"),
      read(block, "nextEpochBlock"),
    ]);
    return {
      totalStaked: totalStaked.toString(),
      validatorCount: Number(validatorCount),
      activeValidatorCount: Number(activeCount),
      minValidatorStake: config.minSelfStake.toString(),
      epoch: Number(epoch),
      epochLength: Number(config.epochLength),
      nextEpochBlock: `0x${nextEpochBlock.toString(16)}`,
      unbondingPeriod: Number(config.unbondingPeriod),
      blockReward: config.blockReward.toString(),
      ...(await this.apr(block, config.epochLength)),
    };
  }

  /** The network figures plus `address`'s own stake, delegations, unbonding entries and rewards at `block`. */
  async account(block: Block, address: string): Promise<AccountStakingInfo> {
    const account = getAddress(address);
    const [network, isValidator, delegations, unbonding, pending] = await Promise.all([
      this.network(block),
      readContract(this.calls, block, { ...staking, functionName: "isValidator", args: [account] }),
      readContract(this.calls, block, { ...staking, functionName: "getDelegations", args: [account] }),
      readContract(this.calls, block, { ...staking, functionName: "getUnbonding", args: [account] }),
      readContract(this.calls, block, { ...staking, functionName: "pendingRewards", args: [account] }),
    ]);
    const selfStake = isValidator
      ? (await readContract(this.calls, block, { ...staking, functionName: "getValidator", args: [account] }))
          .selfStake
      : 0n;
    const delegated = delegations.filter((d) => d.validator !== account);
    return {
      ...network,
      address: account.toLowerCase(),
      isValidator,
      selfStake: selfStake.toString(),
      delegations: delegated.map((d) => ({
        validator: d.validator.toLowerCase(),
        amount: d.amount.toString(),
        pendingRewards: d.pendingRewards.toString(),
      })),
      unbonding: unbonding.map((u) => ({
        validator: u.validator.toLowerCase(),
        amount: u.amount.toString(),
        completionBlock: `0x${u.completionBlock.toString(16)}`,
      })),
      totalDelegated: delegated.reduce((sum, d) => sum + d.amount, 0n).toString(),
      pendingRewards: pending.toString(),
    };
  }

  /**
   * Rewards actually distributed over the last {@link APR_EPOCHS} completed epochs, per unit of the
   * stake bonded at their end, scaled from the chain time they took to a year; with that span.
   */
  private async apr(
    block: Block,
    epochLength: bigint,
  ): Promise<{ apr: string; aprWindow: AprWindow | null }> {
    const none = { apr: "0", aprWindow: null };
    const number = block.header.number;
    if (number + 1n < epochLength) return none;
    const end = ((number + 1n) / epochLength) * epochLength - 1n;
    const epochs = (end + 1n) / epochLength > APR_EPOCHS ? APR_EPOCHS : (end + 1n) / epochLength;
    const start = end + 1n - epochs * epochLength;
    const endBlock = this.chain.blockByNumber(end);
    const startBlock = this.chain.blockByNumber(start);
    // Genesis carries the network's launch time, not a slot: chain time starts with block 1.
    const clockStart = this.chain.blockByNumber(start === 0n ? 1n : start);
    if (!endBlock || !startBlock || !clockStart) return none;
    const [after, before, staked] = await Promise.all([
      readStaking(this.calls, endBlock, "totalRewardsDistributed"),
      start === 0n ? Promise.resolve(0n) : readStaking(this.calls, startBlock, "totalRewardsDistributed"),
      readStaking(this.calls, endBlock, "totalStaked"),
    ]);
    const seconds = endBlock.header.timestamp - clockStart.header.timestamp;
    const aprWindow: AprWindow = {
      fromBlock: `0x${start.toString(16)}`,
      toBlock: `0x${end.toString(16)}`,
      epochs: Number(epochs),
      fullEpochs: Number(APR_EPOCHS),
      seconds: Number(seconds),
      complete: epochs === APR_EPOCHS,
    };
    if (staked === 0n || seconds <= 0n) return { apr: "0", aprWindow };
    const scale = 10n ** 18n;
    return {
      apr: formatFraction(((after - before) * scale * SECONDS_PER_YEAR) / (staked * seconds)),
      aprWindow,
    };
  }
}

type UintGetter =
  | "totalStaked"
  | "validatorCount"
  | "activeValidatorCount"
  | "currentEpoch"
  | "nextEpochBlock"
  | "totalRewardsDistributed";

function readStaking(calls: CallExecutor, block: Block, functionName: UintGetter): Promise<bigint> {
  return readContract(calls, block, { ...staking, functionName }) as Promise<bigint>;
}
